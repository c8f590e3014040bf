package definitions_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// TestPublishNotifierFieldsKeepTheirOrder adds a "fields" object to the
// publish workflow's notifier payload, written out of alphabetical order,
// and checks that the notifier receives, and so Slack shows, the fields in
// the order written: in the definition (a template, in both query
// languages) and in the execution input (passed through the request).
func TestPublishNotifierFieldsKeepTheirOrder(t *testing.T) {
	t.Parallel()
	written := []workflow.Field{
		{Label: "Topic", Value: topic},
		{Label: "Round", Value: "1"},
		{Label: "Channel", Value: "#publishing"},
		{Label: "Asked by", Value: requester},
	}
	fromInput := []workflow.Field{{Label: "Zeta", Value: "last letter"}, {Label: "Alpha", Value: "first letter"}, {Label: "Mid", Value: "m"}}
	tests := []struct {
		name, definition, fields string
		want                     []workflow.Field
	}{
		{"written, JSONPath", definitions.PublishWithApproval,
			`"fields": {"Topic.$": "$.request.topic", "Round.$": "States.Format('{}', $.progress.round)", "Channel": "#publishing", "Asked by.$": "$.request.requestedBy"},`,
			written},
		{"written, JSONata", definitions.PublishWithApprovalJSONata,
			`"fields": {"Topic": "{% $request.topic %}", "Round": "{% $string($round) %}", "Channel": "#publishing", "Asked by": "{% $request.requestedBy %}"},`,
			written},
		{"from the input, JSONPath", definitions.PublishWithApproval, `"fields.$": "$.request.fields",`, fromInput},
		{"from the input, JSONata", definitions.PublishWithApprovalJSONata, `"fields": "{% $request.fields %}",`, fromInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newPublishFixture(t)
			raw, err := definitions.Load(tt.definition)
			if err != nil {
				t.Fatal(err)
			}
			def, err := host.Substitute(raw, deployed())
			if err != nil {
				t.Fatal(err)
			}
			const anchor = `"allowSkip": true,`
			if strings.Count(string(def), anchor) != 1 {
				t.Fatalf("%s: want exactly one %s in the Approve payload", tt.definition, anchor)
			}
			def = []byte(strings.Replace(string(def), anchor, tt.fields+" "+anchor, 1))
			sm, err := f.engine.CreateStateMachine(context.Background(), sfnlocal.CreateStateMachineInput{
				Name: "publish-with-fields", Definition: string(def), RoleArn: "arn:aws:iam::123456789012:role/approvals-example",
			})
			if err != nil {
				t.Fatalf("CreateStateMachine: %v", err)
			}
			input := `{"topic":"Release 2.4","requestedBy":"` + requester + `",` +
				`"fields":{"Zeta":"last letter","Alpha":"first letter","Mid":"m"}}`
			if _, err := f.engine.StartExecution(context.Background(), sfnlocal.StartExecutionInput{StateMachineArn: sm.StateMachineArn, Input: input}); err != nil {
				t.Fatalf("StartExecution: %v", err)
			}
			a := f.nextApproval()
			if diff := cmp.Diff(tt.want, a.Fields); diff != "" {
				t.Errorf("fields the notifier posted (-want +got):\n%s", diff)
			}
		})
	}
}
