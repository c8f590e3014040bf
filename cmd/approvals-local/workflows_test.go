package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// mine is a user's definition: the notifier and who approves are
// placeholders, so the same file deploys to AWS unchanged.
const mine = `{
  "StartAt": "Approve",
  "States": {
    "Approve": {
      "Type": "Task",
      "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
      "Parameters": {
        "FunctionName": "${NotifierFunctionArn}",
        "Payload": {
          "taskToken.$": "$$.Task.Token",
          "executionArn.$": "$$.Execution.Id",
          "stateName.$": "$$.State.Name",
          "channel": "${Channel}",
          "approvers.$": "States.StringSplit('${Approvers}', ',')",
          "requestedBy.$": "$.requestedBy",
          "title": "${Title} TITLE",
          "timeoutSeconds": 3600
        }
      },
      "TimeoutSeconds": 3600,
      "End": true
    }
  }
}`

func writeDefinition(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The user's definitions are deployed with the same placeholders filled
// (the notifier by ${NotifierFunctionArn}), updated when their file
// changes, and a bad file is reported in one line while its state machine
// keeps its last good definition. The shipped workflows run end to end on
// the stand-in functions.
func TestWorkflowsRunEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.asl.json")
	writeDefinition(t, path, strings.Replace(mine, "TITLE", "v1", 1))
	cfg := testConfig(t, t.TempDir())
	cfg.Definitions, cfg.Substitutions = dir, map[string]string{"Title": "Ship my thing"}
	p := startTest(ctx, t, cfg, os.Getenv)
	if !strings.Contains(p.out.String(), "arn:aws:states:us-east-1:123456789012:stateMachine:mine") {
		t.Errorf("the banner does not list the user's state machine:\n%s", p.out)
	}

	t.Run("yours, through the notifier", func(t *testing.T) {
		arn := p.execute(ctx, t, "mine", map[string]any{"requestedBy": bob})
		m := request(ctx, t, p.slack, standInChannel)
		if !hasText(m, "Ship my thing v1") {
			t.Errorf("the request is not the definition's: %s", m.Blocks)
		}
		click(ctx, t, p.slack, alice, m, "Approve")
		if x := p.ended(ctx, t, arn); x.Status != "SUCCEEDED" || !strings.Contains(x.Output, `"action":"approved"`) {
			t.Errorf("execution = %s %s %s %s", x.Status, x.Output, x.Error, x.Cause)
		}
		settled(ctx, t, p.slack, m)
	})

	t.Run("reloaded on change", func(t *testing.T) {
		writeDefinition(t, path, strings.Replace(mine, "TITLE", "v2", 1))
		waitFor(ctx, t, "the update", func() bool { return strings.Contains(p.out.String(), "definitions: mine updated from "+path) })
		sm, err := p.sfn.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String("arn:aws:states:us-east-1:123456789012:stateMachine:mine")})
		if err != nil || !strings.Contains(aws.ToString(sm.Definition), "Ship my thing v2") {
			t.Fatalf("definition after the change: %v %s", err, aws.ToString(sm.Definition))
		}

		writeDefinition(t, path, `{"StartAt":"Approve","States":{"Approve":{"Type":"Pass","Next":"Nowhere"}}}`)
		waitFor(ctx, t, "the invalid definition's report", func() bool {
			return strings.Contains(p.out.String(), "definitions: "+path+" not deployed: InvalidDefinition")
		})
		sm, err = p.sfn.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: sm.StateMachineArn})
		if err != nil || !strings.Contains(aws.ToString(sm.Definition), "Ship my thing v2") {
			t.Errorf("an invalid file replaced the last good definition: %v %s", err, aws.ToString(sm.Definition))
		}

		writeDefinition(t, filepath.Join(dir, "other.asl.json"), strings.Replace(mine, "${Title}", "${OtherTitle}", 1))
		waitFor(ctx, t, "the unfilled placeholder's report", func() bool {
			return strings.Contains(p.out.String(), "other.asl.json not deployed: substitute the definition's placeholders: ${OtherTitle} has no value (pass -substitute OtherTitle=…)")
		})
	})

	t.Run("batch from the sample items in the local S3, a failed item retried on approval", func(t *testing.T) {
		sample, err := definitions.Sample(definitions.BatchWithApprovedRetries)
		if err != nil {
			t.Fatal(err)
		}
		arn := p.execute(ctx, t, "batch-with-approved-retries", json.RawMessage(sample))
		m := request(ctx, t, p.slack, standInChannel)
		if !hasText(m, "Retry the 1 failed items?") || !hasText(m, "1 (1 rejected by the worker, 0 technical after automatic retries)") {
			t.Errorf("the request is not to retry the rejected item: %s", m.Blocks)
		}
		click(ctx, t, p.slack, carol, m, "Approve")
		x := p.ended(ctx, t, arn)
		var out struct {
			Outcome string `json:"outcome"`
			Retries int    `json:"retries"`
		}
		if x.Status != "SUCCEEDED" || json.Unmarshal([]byte(x.Output), &out) != nil || out.Outcome != "completed" || out.Retries != 1 {
			t.Errorf("execution = %s %s %s %s", x.Status, x.Output, x.Error, x.Cause)
		}
	})
}

func TestStandIns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, err := draftAgent(ctx, []byte(`{"topic":"Callbacks"}`))
	if err != nil || !strings.Contains(string(first), `"Callbacks: how a workflow waits for a person."`) {
		t.Errorf("draft-agent = %s, %v", first, err)
	}
	second, err := draftAgent(ctx, []byte(`{"topic":"Callbacks","feedback":"Shorter\ncut the intro"}`))
	if err != nil || !strings.Contains(string(second), `"summary":"Redrafted after: Shorter"`) {
		t.Errorf("draft-agent with feedback = %s, %v", second, err)
	}
	fns := standIns(func() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }, newItemFailures())
	if out, err := fns[publishFunction](ctx, []byte(`{"topic":"Step Functions: callbacks!"}`)); err != nil || !strings.Contains(string(out), `"url":"https://blog.example/2026/11/30/step-functions-callbacks"`) {
		t.Errorf("publish = %s, %v", out, err)
	}
	if out, err := fns[fileRejectionFunction](ctx, []byte(`{"reason":"typo"}`)); err != nil || !strings.Contains(string(out), `"filed":true`) {
		t.Errorf("file-rejection = %s, %v", out, err)
	}
	process := fns[processItemFunction]
	for i, want := range []string{"the invoice total does not match its lines", "", "the invoice total does not match its lines"} {
		_, err := process(ctx, []byte(`{"id":"a","fail":true}`))
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.Contains(err.Error(), want))) {
			t.Errorf("process-item call %d = %v, want %q", i+1, err, want)
		}
	}
	if _, err := process(ctx, []byte(`{"id":"b"}`)); err != nil {
		t.Errorf("process-item of a good item = %v", err)
	}
	if _, err := process(ctx, []byte(`"b"`)); err == nil {
		t.Error("process-item took a string")
	}
}
