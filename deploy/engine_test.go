package deploy

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// The definitions the stack deploys, filled with the template's
// DefinitionSubstitutions, validate without a diagnostic and create
// Standard state machines on the local engine, through the real SDK
// client and the engine's Step Functions API.
func TestDeployedDefinitionsValidateOnTheLocalEngine(t *testing.T) {
	t.Parallel()
	tmpl, err := readTemplate(everything())
	if err != nil {
		t.Fatal(err)
	}
	machines, err := tmpl.stateMachines()
	if err != nil {
		t.Fatal(err)
	}
	engine := sfnlocal.New(sfnlocal.Options{})
	t.Cleanup(engine.Close)
	api := httptest.NewServer(sfnapi.NewHandler(engine))
	t.Cleanup(api.Close)
	ctx := context.Background()
	client := stepfunctionstest.NewClient(ctx, api.URL)
	for _, m := range machines {
		t.Run(m.name, func(t *testing.T) {
			_, def, err := tmpl.deployedDefinition(m.resource)
			if err != nil {
				t.Fatal(err)
			}
			v, err := client.ValidateStateMachineDefinition(ctx, &sfn.ValidateStateMachineDefinitionInput{
				Definition: aws.String(string(def)), Type: types.StateMachineTypeStandard,
			})
			if err != nil {
				t.Fatal(err)
			}
			if v.Result != types.ValidateStateMachineDefinitionResultCodeOk || len(v.Diagnostics) != 0 {
				for _, d := range v.Diagnostics {
					t.Errorf("%s %s at %s: %s", d.Severity, aws.ToString(d.Code), aws.ToString(d.Location), aws.ToString(d.Message))
				}
				t.Fatalf("result %s", v.Result)
			}
			role, err := tmpl.roleOf(m.resource, "RoleArn")
			if err != nil {
				t.Fatal(err)
			}
			out, err := client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
				Name: aws.String(m.name), Definition: aws.String(string(def)), Type: types.StateMachineTypeStandard,
				RoleArn: aws.String("arn:aws:iam::123456789012:role/" + role),
			})
			if err != nil {
				t.Fatalf("CreateStateMachine: %v", err)
			}
			if got, want := aws.ToString(out.StateMachineArn), "arn:aws:states:us-east-1:123456789012:stateMachine:"+m.name; got != want {
				t.Errorf("state machine ARN %s, want %s (the name the role and the bot's policy assume)", got, want)
			}
		})
	}
}
