package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
)

// attempt invokes the handler as one attempt of the approval Task: a task
// token of its own, in the same execution and state.
func (f *fixture) attempt(t *testing.T, token string) (Response, error) {
	t.Helper()
	f.resumer.Open(token)
	return f.handler.Handle(context.Background(), payload(t, func(p map[string]any) { p["taskToken"] = token }))
}

func (f *fixture) get(t *testing.T, id string) workflow.Approval {
	t.Helper()
	a, err := f.store.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The Task's Retry invokes the notifier again with a new token after an
// attempt whose post landed but failed for the notifier; the new request
// replaces the orphan.
func TestHandleReplacesTheRequestOfAFailedAttempt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// first fails or completes the first attempt, then Step Functions
		// closes it.
		first       func(t *testing.T, f *fixture) (id string)
		wantUpdated bool
	}{
		{"post answered with an error", func(t *testing.T, f *fixture) string {
			f.poster.lost = 1
			if _, err := f.attempt(t, token+"-1"); lambdaErrorType(err) != ErrorSlackPostFailed {
				t.Fatalf("first attempt = %v, want SlackPostFailed", err)
			}
			return f.stored(t)[0].ID
		}, false},
		{"attempt lost after recording its message", func(t *testing.T, f *fixture) string {
			resp, err := f.attempt(t, token+"-1")
			if err != nil {
				t.Fatal(err)
			}
			return resp.ApprovalID
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			oldID := tt.first(t, f)
			f.resumer.TimeOut(token + "-1") // the Retry closed the failed attempt
			resp, err := f.attempt(t, token+"-2")
			if err != nil {
				t.Fatal(err)
			}
			old := f.get(t, oldID)
			link := "https://fake.slack.com/archives/C0123ABCD/p" + strings.Replace(resp.TS, ".", "", 1)
			want := workflow.Cancellation{Reason: workflow.ReasonReplaced, ReplacedBy: resp.ApprovalID, Link: link}
			if old.Status != workflow.StatusCancelled || old.Cancellation == nil || *old.Cancellation != want {
				t.Fatalf("old request = %s %+v, want cancelled %+v", old.Status, old.Cancellation, want)
			}
			if f.get(t, resp.ApprovalID).Status != workflow.StatusPending {
				t.Error("the new request is not pending")
			}
			updated := f.poster.updated()
			if tt.wantUpdated != (len(updated) == 1) || (tt.wantUpdated && (updated[0].ID != oldID || !old.MessageSynced)) {
				t.Errorf("updated %d messages (synced %v), want the old one's updated: %v", len(updated), old.MessageSynced, tt.wantUpdated)
			}
			lines := f.logs.lines()
			var last map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
				t.Fatal(err)
			}
			if r, _ := last["replaced"].([]any); len(r) != 1 || r[0] != oldID || last["level"] != "info" {
				t.Errorf("log line %s does not report the replaced %s", lines[len(lines)-1], oldID)
			}
		})
	}
}

// An inline Map runs the same state of the same execution at once: each
// iteration's request waits on a live task and replaces nothing.
func TestHandleKeepsRequestsWhoseTaskStillWaits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first, err := f.attempt(t, token+"-item-1")
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.attempt(t, token+"-item-2")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{first.ApprovalID, second.ApprovalID} {
		if got := f.get(t, id).Status; got != workflow.StatusPending {
			t.Errorf("%s is %s, want both pending", id, got)
		}
	}
	if n := len(f.poster.updated()); n != 0 {
		t.Errorf("%d messages updated, want none", n)
	}
}

// Replacing is best effort: the new request is posted and answered even
// when checking the older one fails.
func TestHandleSucceedsWhenReplacingFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.poster.lost = 1
	_, _ = f.attempt(t, token+"-1")
	f.resumer.TimeOut(token + "-1")
	f.resumer.Open(token + "-2")
	f.resumer.SetErr(errors.New("sfn: throttled"))
	resp, err := f.handler.Handle(context.Background(), payload(t, func(p map[string]any) { p["taskToken"] = token + "-2" }))
	if err != nil || resp.TS == "" {
		t.Fatalf("Handle = %+v, %v; want the new request posted", resp, err)
	}
	if got := f.stored(t); len(got) != 2 {
		t.Errorf("pending = %d, want the old request left pending", len(got))
	}
	lines := f.logs.lines()
	if last := lines[len(lines)-1]; !strings.Contains(last, `"level":"warn"`) || !strings.Contains(last, "throttled") {
		t.Errorf("log line %s does not warn about the failed check", last)
	}
}

// A call for a request that is already final (here: replaced, its message
// never recorded) posts nothing: its task no longer waits.
func TestHandlePostsNothingForAFinalRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.poster.lost = 1
	_, _ = f.attempt(t, token+"-1")
	f.resumer.TimeOut(token + "-1")
	if _, err := f.attempt(t, token+"-2"); err != nil {
		t.Fatal(err)
	}
	posts := f.poster.count()
	resp, err := f.handler.Handle(context.Background(), payload(t, func(p map[string]any) { p["taskToken"] = token + "-1" }))
	if err != nil || resp.ApprovalID == "" || resp.TS != "" {
		t.Errorf("Handle for the replaced request = %+v, %v; want its ID and no message", resp, err)
	}
	if got := f.poster.count(); got != posts {
		t.Errorf("posted %d more messages, want none", got-posts)
	}
}
