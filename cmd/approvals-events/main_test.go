package main

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/lambdas/events"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

func statusChange(t *testing.T, arn, status string, stop time.Time) []byte {
	t.Helper()
	var stopDate any
	if !stop.IsZero() {
		stopDate = stop.UnixMilli()
	}
	b, err := json.Marshal(map[string]any{
		"version": "0", "id": "315c1398-40ff-a850-213b-158f73e60175",
		"detail-type": "Step Functions Execution Status Change", "source": "aws.states",
		"account": "123456789012", "time": "2026-11-29T10:00:00Z", "region": "us-east-1",
		"resources": []string{arn},
		"detail": map[string]any{
			"executionArn": arn, "stateMachineArn": "arn:aws:states:us-east-1:123456789012:stateMachine:publish",
			"name": "run-1", "status": status, "startDate": 1796032800000, "stopDate": stopDate,
			"input": "{}", "output": nil,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The binary, as Lambda runs it: an ABORTED event closes the execution's
// request, updates its message (no buttons; what happened and when) and
// replies in its thread; a malformed or a RUNNING event is acknowledged.
func TestEventsClosesTheRequestsOfAnEndedExecution(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t, s.env(t))
	const execution = "arn:aws:states:us-east-1:123456789012:execution:publish:aborted"
	a := s.request(t, execution)
	other := s.request(t, execution+"-other")

	for _, payload := range [][]byte{[]byte("not json"), statusChange(t, execution, "RUNNING", time.Time{})} {
		if r := s.invoke(t, payload); r.Failed() {
			t.Fatalf("an event to ignore failed: %s: %s", r.ErrorType, r.ErrorMessage)
		}
	}
	r := s.invoke(t, statusChange(t, execution, "ABORTED", time.Now()))
	if r.Failed() {
		t.Fatalf("Invoke failed: %s: %s", r.ErrorType, r.ErrorMessage)
	}
	var resp events.Response
	if err := json.Unmarshal(r.Payload, &resp); err != nil || len(resp.Closed) != 1 || resp.Closed[0] != a.ID || len(resp.Unsynced) != 0 {
		t.Fatalf("response %s, want %s closed and its message updated", r.Payload, a.ID)
	}
	m, _ := s.slack.Message(a.Channel, a.MessageTS)
	if len(fakeslack.ButtonActions(m.Blocks)) != 0 || !strings.Contains(string(m.Blocks), "the execution was aborted at") {
		t.Errorf("message = %s, want no buttons and the execution's end", m.Blocks)
	}
	var replies int
	for _, msg := range s.slack.Messages(a.Channel) {
		if msg.ThreadTS == a.MessageTS && msg.TS != a.MessageTS && strings.HasPrefix(msg.Text, "Cancelled: the execution was aborted at") {
			replies++
		}
	}
	if replies != 1 {
		t.Errorf("thread replies = %d, want 1", replies)
	}
	got, err := s.svc.Get(t.Context(), a.ID)
	if err != nil || got.Status != workflow.StatusCancelled || !got.MessageSynced || got.Cancellation.Reason != workflow.ReasonExecutionAborted {
		t.Errorf("stored = %s synced %v %+v, %v; want cancelled and synced", got.Status, got.MessageSynced, got.Cancellation, err)
	}
	if got, _ := s.svc.Get(t.Context(), other.ID); got.Status != workflow.StatusPending {
		t.Errorf("another execution's request is %s", got.Status)
	}
	s.checkNoSecrets(t)
}

// A table the function cannot use fails the invocation as
// StoreUnavailable, so Lambda retries the event.
func TestEventsStoreOutageIsStoreUnavailable(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	env := s.env(t)
	env["APPROVALS_TABLE"] = "no-such-table-" + randomHex(4)
	s.start(t, env)
	r := s.invoke(t, statusChange(t, "arn:aws:states:us-east-1:123456789012:execution:publish:x", "FAILED", time.Now()))
	if r.ErrorType != events.ErrorStoreUnavailable || !strings.Contains(r.ErrorMessage, "ResourceNotFoundException") {
		t.Errorf("result = %s: %s, want StoreUnavailable naming ResourceNotFoundException", r.ErrorType, r.ErrorMessage)
	}
	s.checkNoSecrets(t)
}

func TestEventsExitsOnMissingConfiguration(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	for _, name := range []string{"SLACK_BOT_TOKEN", "APPROVALS_TABLE"} {
		t.Run(name, func(t *testing.T) {
			env := maps.Clone(s.env(t))
			delete(env, name)
			p := harness.Start(t, env)
			if code := p.Wait(t); code != 1 {
				t.Errorf("exit code = %d, want 1", code)
			}
			out := p.Output()
			if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(out, name) || strings.Contains(out, "panic") {
				t.Errorf("output = %q, want one line naming %s", out, name)
			}
			if strings.Contains(out, s.slack.BotToken()) {
				t.Error("the output contains the bot token")
			}
		})
	}
}
