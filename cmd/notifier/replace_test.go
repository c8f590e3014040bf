package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// The binary's wiring end to end: a first attempt whose post landed but
// failed for the notifier, closed by Step Functions; the retried attempt's
// request replaces it through the execution index and a heartbeat.
func TestNotifierReplacesTheRequestOfAFailedAttempt(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	const execution = "arn:aws:states:us-east-1:123456789012:execution:publish:retried"
	first, second := s.sfn.StartTask(execution, "Approve"), s.sfn.StartTask(execution, "Approve")
	inExecution := func(p map[string]any) { p["executionArn"] = execution }

	s.slack.FailMethodAfterApplying("chat.postMessage", 1, http.StatusInternalServerError)
	r := invoke(t, s, requestPayload(t, first, inExecution))
	if r.ErrorType != notifier.ErrorSlackPostFailed {
		t.Fatalf("first attempt = %s: %s, want SlackPostFailed", r.ErrorType, r.ErrorMessage)
	}
	oldID := regexp.MustCompile(`ap_[a-z2-7]{26}`).FindString(r.ErrorMessage)
	s.sfn.TimeOut(first) // the failed attempt closes; the Retry gets a new token
	r = invoke(t, s, requestPayload(t, second, inExecution))
	if r.Failed() {
		t.Fatalf("retried attempt failed: %s: %s", r.ErrorType, r.ErrorMessage)
	}
	var resp notifier.Response
	if err := json.Unmarshal(r.Payload, &resp); err != nil {
		t.Fatal(err)
	}

	store := dynamo.New(harness.Admin, s.table)
	open, err := store.ListOpen(context.Background(), execution, 10)
	if err != nil || len(open) != 1 || open[0].ID != resp.ApprovalID {
		t.Fatalf("open approvals = %v, %v; want only the new %s", open, err, resp.ApprovalID)
	}
	if got := len(s.slack.Messages(channel)); got != 2 {
		t.Errorf("Slack has %d messages, want the orphan and the new request", got)
	}
	if n := s.sfn.Calls("SendTaskHeartbeat"); n != 1 {
		t.Errorf("SendTaskHeartbeat calls = %d, want 1 (the older request's token)", n)
	}
	if s.sfn.Outcome(second).State != "open" {
		t.Error("the new request's task was closed")
	}
	old, err := store.Get(context.Background(), oldID)
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != workflow.StatusCancelled || old.Cancellation == nil || old.Cancellation.ReplacedBy != resp.ApprovalID ||
		old.Cancellation.Link != s.slack.Permalink(channel, resp.TS, "") {
		t.Errorf("the orphan is %s %+v, want cancelled, replaced by %s with a link to its message", old.Status, old.Cancellation, resp.ApprovalID)
	}
	checkNoSecrets(t, s, first, second)
}
