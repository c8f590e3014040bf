package sfnapi_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

const passDef = `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`

func TestStateMachineLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := testContext(t)
	created, err := f.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("lifecycle"), Definition: aws.String(passDef), RoleArn: aws.String(roleArn), Type: types.StateMachineTypeStandard,
	})
	if err != nil {
		t.Fatalf("CreateStateMachine: %v", err)
	}
	arn := aws.ToString(created.StateMachineArn)
	if arn != "arn:aws:states:us-east-1:123456789012:stateMachine:lifecycle" || !created.CreationDate.Equal(start) {
		t.Errorf("CreateStateMachine = %s at %v", arn, created.CreationDate)
	}

	sm, err := f.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("DescribeStateMachine: %v", err)
	}
	if aws.ToString(sm.Name) != "lifecycle" || aws.ToString(sm.Definition) != passDef || aws.ToString(sm.RoleArn) != roleArn ||
		sm.Type != types.StateMachineTypeStandard || sm.Status != types.StateMachineStatusActive || aws.ToString(sm.RevisionId) == "" ||
		sm.LoggingConfiguration == nil || sm.LoggingConfiguration.Level != types.LogLevelOff {
		t.Errorf("DescribeStateMachine = %+v", sm)
	}

	const newDef = `{"StartAt":"Q","States":{"Q":{"Type":"Succeed"}}}`
	updated, err := f.client.UpdateStateMachine(ctx, &sfn.UpdateStateMachineInput{StateMachineArn: aws.String(arn), Definition: aws.String(newDef)})
	if err != nil {
		t.Fatalf("UpdateStateMachine: %v", err)
	}
	if updated.UpdateDate == nil || aws.ToString(updated.RevisionId) == aws.ToString(sm.RevisionId) {
		t.Errorf("UpdateStateMachine = %+v, want a new revision", updated)
	}
	_, err = f.client.UpdateStateMachine(ctx, &sfn.UpdateStateMachineInput{StateMachineArn: aws.String(arn)})
	if e := wantAPIError[*types.ValidationException](t, err); e.Reason != types.ValidationExceptionReasonMissingRequiredParameter {
		t.Errorf("UpdateStateMachine without changes: reason %q", e.Reason)
	}

	x := f.finished(f.start(arn, `{}`))
	forExec, err := f.client.DescribeStateMachineForExecution(ctx, &sfn.DescribeStateMachineForExecutionInput{ExecutionArn: x.ExecutionArn})
	if err != nil {
		t.Fatalf("DescribeStateMachineForExecution: %v", err)
	}
	if aws.ToString(forExec.Definition) != newDef || aws.ToString(forExec.StateMachineArn) != arn {
		t.Errorf("DescribeStateMachineForExecution = %+v", forExec)
	}

	if _, err := f.client.DeleteStateMachine(ctx, &sfn.DeleteStateMachineInput{StateMachineArn: aws.String(arn)}); err != nil {
		t.Fatalf("DeleteStateMachine: %v", err)
	}
	_, err = f.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(arn)})
	wantAPIError[*types.StateMachineDoesNotExist](t, err)
}

func TestStateMachineErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := testContext(t)

	_, err := f.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("broken"), RoleArn: aws.String(roleArn),
		Definition: aws.String(`{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"Nowhere"}}}`),
	})
	if e := wantAPIError[*types.InvalidDefinition](t, err); !strings.Contains(e.ErrorMessage(), "MISSING_TRANSITION_TARGET") {
		t.Errorf("InvalidDefinition message = %q", e.ErrorMessage())
	}
	_, err = f.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("express-callback"), RoleArn: aws.String(roleArn), Definition: aws.String(approvalDef), Type: types.StateMachineTypeExpress,
	})
	wantAPIError[*types.InvalidDefinition](t, err)
	_, err = f.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{Name: aws.String("bad name?"), RoleArn: aws.String(roleArn), Definition: aws.String(passDef)})
	wantAPIError[*types.InvalidName](t, err)

	arn := f.create(passDef)
	_, err = f.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String(arn[strings.LastIndex(arn, ":")+1:]), RoleArn: aws.String(roleArn), Definition: aws.String(approvalDef),
	})
	wantAPIError[*types.StateMachineAlreadyExists](t, err)

	_, err = f.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(arn + "-missing")})
	wantAPIError[*types.StateMachineDoesNotExist](t, err)
	_, err = f.client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(arn + "-missing")})
	wantAPIError[*types.StateMachineDoesNotExist](t, err)
	_, err = f.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String("not-an-arn")})
	wantAPIError[*types.InvalidArn](t, err)
	_, err = f.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String("not-an-arn")})
	wantAPIError[*types.InvalidArn](t, err)
	_, err = f.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String("arn:aws:states:us-east-1:123456789012:execution:x:y")})
	wantAPIError[*types.ExecutionDoesNotExist](t, err)
	_, err = f.client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(arn), Input: aws.String("{")})
	wantAPIError[*types.InvalidExecutionInput](t, err)
}

func TestListStateMachinesPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var want []string
	for range 5 {
		want = append(want, f.create(passDef))
	}
	pages := sfn.NewListStateMachinesPaginator(f.client, &sfn.ListStateMachinesInput{MaxResults: 2})
	var got []string
	var sizes []int
	for pages.HasMorePages() {
		page, err := pages.NextPage(testContext(t))
		if err != nil {
			t.Fatalf("ListStateMachines: %v", err)
		}
		sizes = append(sizes, len(page.StateMachines))
		for _, m := range page.StateMachines {
			if m.Type != types.StateMachineTypeStandard || m.CreationDate == nil || aws.ToString(m.Name) == "" {
				t.Errorf("list item = %+v", m)
			}
			got = append(got, aws.ToString(m.StateMachineArn))
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || len(sizes) != 3 {
		t.Errorf("listed %v in pages of %v, want %v in pages of 2", got, sizes, want)
	}
	_, err := f.client.ListStateMachines(testContext(t), &sfn.ListStateMachinesInput{NextToken: aws.String("bogus")})
	wantAPIError[*types.InvalidToken](t, err)
}
