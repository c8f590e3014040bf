package jsonata

import (
	"encoding/json"
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

func BenchmarkEvalCached(b *testing.B) {
	vars := Vars{"states": jsonvalue.ObjectOf("input", jsonvalue.ObjectOf("a", json.Number("2"), "b", "x"))}
	for b.Loop() {
		if _, err := Eval(b.Context(), "{'v': $states.input.a * 3, 'u': $uppercase($states.input.b)}", Env{Vars: vars}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTemplateArguments evaluates the Arguments of the approval task
// in the JSONata publish workflow, with its variables and context.
func BenchmarkTemplateArguments(b *testing.B) {
	template, err := jsonvalue.Decode([]byte(`{
		"FunctionName": "approvals-notifier",
		"Payload": {
			"taskToken": "{% $states.context.Task.Token %}",
			"executionArn": "{% $states.context.Execution.Id %}",
			"stateName": "{% $states.context.State.Name %}",
			"channel": "{% $request.channel %}",
			"approvers": "{% [$request.approvers] %}",
			"title": "{% 'Publish: ' & $request.topic & ' (round ' & $round & ' of ' & $request.maxRounds & ')' %}",
			"summary": "{% $draft.summary %}",
			"drafts": "{% $draft.drafts %}",
			"allowSkip": true,
			"timeoutSeconds": "{% $request.approvalTimeoutSeconds %}"
		}
	}`))
	if err != nil {
		b.Fatal(err)
	}
	vars := Vars{}
	for name, text := range map[string]string{
		"states": `{"input": {"topic": "Release notes"},
			"context": {"Execution": {"Id": "arn:aws:states:us-east-1:123456789012:execution:publish:run-1", "Name": "run-1",
				"Input": {"topic": "Release notes"}, "StartTime": "2025-01-02T03:04:05.000Z"},
				"State": {"Name": "Approve", "EnteredTime": "2025-01-02T03:04:06.000Z", "RetryCount": 0},
				"Task": {"Token": "tok-123"}}}`,
		"request": `{"channel": "C123", "approvers": ["U1", "U2"], "requestedBy": "U9", "maxRounds": 3,
			"approvalTimeoutSeconds": 86400, "revisionPresets": ["Shorter", "More detail"], "topic": "Release notes"}`,
		"draft": `{"drafts": [{"id": "d1", "text": "First draft"}, {"id": "d2", "text": "Second draft"}], "summary": "Two drafts"}`,
		"round": `1`,
	} {
		if vars[name], err = jsonvalue.Decode([]byte(text)); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := TemplateField(b.Context(), "Arguments", template, Env{Vars: vars}); err != nil {
			b.Fatal(err)
		}
	}
}
