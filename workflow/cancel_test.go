package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

const link = "https://fake.slack.com/archives/C0123ABCD/p1700000001000300"

// unposted stores an approval whose message was never recorded (the
// notifier posted it, then failed) and opens its task.
func (f *fixture) unposted(t *testing.T, edit func(*workflow.Request)) workflow.Approval {
	t.Helper()
	r := must(workflow.ParseRequest(encode(t, validPayload())))
	r.TaskToken = workflow.TaskToken(fmt.Sprintf("%s-unposted-%d", token, time.Now().UnixNano()))
	if edit != nil {
		edit(&r)
	}
	a, _, err := f.svc.Request(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	f.resumer.Open(r.TaskToken.Reveal())
	return a
}

func inExecution(arn, state string) func(*workflow.Request) {
	return func(r *workflow.Request) { r.ExecutionARN, r.StateName = arn, state }
}

func TestSupersededFindsOnlyOlderRequestsWhoseTaskClosed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const exec = "arn:aws:states:us-east-1:123456789012:execution:publish:orphans"
	ctx := context.Background()
	orphan := f.unposted(t, inExecution(exec, "Approve")) // its attempt failed after posting
	f.resumer.TimeOut(orphan.TaskToken.Reveal())
	f.advance(time.Second)
	mapItem := f.request(t, inExecution(exec, "Approve")) // another Map iteration: still waits
	f.advance(time.Second)
	otherState := f.request(t, inExecution(exec, "Review"))
	f.resumer.TimeOut(otherState.TaskToken.Reveal())
	otherExec := f.request(t, inExecution(exec+"-2", "Approve"))
	f.resumer.TimeOut(otherExec.TaskToken.Reveal())
	overdue := f.request(t, func(r *workflow.Request) { inExecution(exec, "Approve")(r); r.TimeoutSeconds = 1 })
	f.resumer.TimeOut(overdue.TaskToken.Reveal())
	claimed := f.request(t, inExecution(exec, "Approve"))
	f.resumer.SetErr(errors.New("connection reset"))
	_, _ = f.svc.Decide(ctx, claimed.ID, approve("U0123ABC")) // left claimed
	f.resumer.SetErr(nil)
	f.resumer.TimeOut(claimed.TaskToken.Reveal())
	f.advance(2 * time.Second)
	newer := f.request(t, inExecution(exec, "Approve"))
	f.advance(time.Second)
	younger := f.unposted(t, inExecution(exec, "Approve")) // asked after newer
	f.resumer.TimeOut(younger.TaskToken.Reveal())

	found, err := f.svc.Superseded(ctx, newer)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].ID != orphan.ID {
		t.Fatalf("Superseded = %v, want only the orphan %s", ids(found), orphan.ID)
	}
	if found[0].TaskToken == "" {
		t.Error("a superseded approval is returned without its token: it was not read whole")
	}
	for _, a := range []workflow.Approval{orphan, mapItem, otherState, otherExec, overdue, claimed, newer, younger} {
		if got := must(f.svc.Get(ctx, a.ID)); got.Status == workflow.StatusCancelled {
			t.Errorf("Superseded changed %s", a.ID)
		}
	}
}

func TestCancelClosesAReplacedRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	old := f.request(t, nil)
	f.resumer.TimeOut(old.TaskToken.Reveal())
	newer := f.request(t, nil)

	got, err := f.svc.Cancel(ctx, old.ID, workflow.Replaced(newer, link))
	if err != nil {
		t.Fatal(err)
	}
	want := workflow.Cancellation{Reason: workflow.ReasonReplaced, ReplacedBy: newer.ID, Link: link}
	if got.Status != workflow.StatusCancelled || got.Cancellation == nil || *got.Cancellation != want || got.TaskToken != "" || !got.ClosedAt.Equal(f.now) {
		t.Errorf("cancelled = status %s, cancellation %+v, token kept %v, closed %v", got.Status, got.Cancellation, got.TaskToken != "", got.ClosedAt)
	}
	if pending := must(f.svc.PendingFor(ctx, "U0123ABC", 20)); len(pending) != 1 || pending[0].ID != newer.ID {
		t.Errorf("pending = %v, want only the newer %s", ids(pending), newer.ID)
	}
	if unsynced := must(f.svc.Unsynced(ctx, 10)); len(unsynced) != 1 || unsynced[0].ID != old.ID {
		t.Errorf("unsynced = %v, want the cancelled request's message", ids(unsynced))
	}
	decided, err := f.svc.Decide(ctx, old.ID, approve("U0123ABC"))
	if workflow.ErrorCode(err) != workflow.ECANCELLED || decided.Status != workflow.StatusCancelled {
		t.Errorf("Decide on a cancelled request = %s, %v; want ECANCELLED", decided.Status, err)
	}
	if task, _ := f.resumer.Task(old.TaskToken.Reveal()); task.Results != 0 {
		t.Error("a click on a cancelled request resumed its task")
	}

	tests := []struct {
		name string
		id   string
		c    workflow.Cancellation
		want string
	}{
		{"twice", old.ID, workflow.Replaced(newer, link), workflow.ECONFLICT},
		{"without a reason", newer.ID, workflow.Cancellation{}, workflow.EINVALID},
		{"with a reason too long", newer.ID, workflow.Cancellation{Reason: string(make([]byte, workflow.MaxReasonTextLen+1))}, workflow.EINVALID},
		{"unknown", "ap_nope", workflow.Replaced(newer, link), workflow.ENOTFOUND},
	}
	for _, tt := range tests {
		if _, err := f.svc.Cancel(ctx, tt.id, tt.c); workflow.ErrorCode(err) != tt.want {
			t.Errorf("Cancel %s = %v, want %s", tt.name, err, tt.want)
		}
	}
	if got := must(f.svc.Get(ctx, newer.ID)); got.Status != workflow.StatusPending {
		t.Errorf("a refused Cancel changed the newer request to %s", got.Status)
	}
}

func TestSupersededReportsAFailedCheck(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	old := f.request(t, nil)
	f.resumer.TimeOut(old.TaskToken.Reveal())
	newer := f.request(t, nil)
	f.resumer.SetErr(errors.New("throttled"))
	found, err := f.svc.Superseded(context.Background(), newer)
	if err == nil || len(found) != 0 {
		t.Errorf("Superseded with heartbeats failing = %v, %v; want nothing found and the error", ids(found), err)
	}
}

// A click on a request whose message was never recorded records it, then
// decides, so the message can show the outcome.
func TestClickRecordsAMissingMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	a := f.unposted(t, nil)
	on := workflow.MessageRef{Channel: a.Channel, TS: "1700000009.000100"}
	got, err := f.svc.DecideOn(ctx, a.ID, approve("U0123ABC"), on)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.StatusDecided || got.Channel != on.Channel || got.MessageTS != on.TS {
		t.Errorf("decided = %s on %s/%s, want decided on the clicked message", got.Status, got.Channel, got.MessageTS)
	}
	if unsynced := must(f.svc.Unsynced(ctx, 10)); len(unsynced) != 1 {
		t.Errorf("unsynced = %d, want the clicked message to be updated", len(unsynced))
	}
}

func ids(list []workflow.Approval) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.ID)
	}
	return out
}

// A button decides only the approval of the message it is on.
func TestDecideOnAnotherMessageChangesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	a := f.request(t, nil)
	tests := []struct {
		name string
		on   workflow.MessageRef
	}{
		{"another message", workflow.MessageRef{Channel: a.Channel, TS: "1700000099.000100"}},
		{"another channel", workflow.MessageRef{Channel: "C0OTHER", TS: a.MessageTS}},
	}
	for _, tt := range tests {
		got, err := f.svc.DecideOn(ctx, a.ID, approve("U0123ABC"), tt.on)
		if workflow.ErrorCode(err) != workflow.EINVALID || got.MessageTS != a.MessageTS {
			t.Errorf("%s: DecideOn = %v (message %s), want EINVALID and the recorded message kept", tt.name, err, got.MessageTS)
		}
	}
	if got := must(f.svc.Get(ctx, a.ID)); got.Status != workflow.StatusPending || got.Decision != nil {
		t.Fatalf("refused clicks changed the approval: %s %+v", got.Status, got.Decision)
	}
	if task, _ := f.resumer.Task(a.TaskToken.Reveal()); !task.Open {
		t.Fatal("a refused click resumed the task")
	}
	on := workflow.MessageRef{Channel: a.Channel, TS: a.MessageTS}
	if got, err := f.svc.DecideOn(ctx, a.ID, approve("U0123ABC"), on); err != nil || got.Status != workflow.StatusDecided {
		t.Errorf("DecideOn the request message = %s, %v; want decided", got.Status, err)
	}
}
