package workflow_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

const restarted = "the local engine restarted"

// Every pending approval of an execution Step Functions does not know is
// closed with the reason, at once and whatever its age; those of an
// ended execution are closed as CloseExecution would; those of a running
// one stay; each execution is asked about once.
func TestCloseGoneClosesTheRequestsOfVanishedExecutions(t *testing.T) {
	t.Parallel()
	f, ex := watched(t, workflow.DefaultExecutionChecks)
	ctx := context.Background()
	gone := []workflow.Approval{f.request(t, inExecution(execARN(1), "Approve")), f.request(t, inExecution(execARN(1), "Review"))}
	ended := f.request(t, inExecution(execARN(2), "Approve"))
	running := f.request(t, inExecution(execARN(3), "Approve"))
	decided := f.request(t, inExecution(execARN(4), "Approve"))
	if _, err := f.svc.Decide(ctx, decided.ID, approve("U0123ABC")); err != nil {
		t.Fatal(err)
	}
	ex.Forget(execARN(1))
	ex.Forget(execARN(4))
	stop := f.now.Add(-time.Second)
	ex.End(execARN(2), workflow.ExecutionAborted, stop)

	closed, err := f.svc.CloseGone(ctx, restarted)
	if err != nil {
		t.Fatal(err)
	}
	got, want := ids(closed), []string{gone[0].ID, gone[1].ID, ended.ID}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("closed %v, want %v", got, want)
	}
	for id, want := range map[string]workflow.Cancellation{
		gone[0].ID: {Reason: restarted},
		gone[1].ID: {Reason: restarted},
		ended.ID:   {Reason: workflow.ReasonExecutionAborted, StoppedAt: stop},
	} {
		got := must(f.svc.Get(ctx, id))
		if got.Status != workflow.StatusCancelled || got.Cancellation == nil || got.Cancellation.Reason != want.Reason || !got.Cancellation.StoppedAt.Equal(want.StoppedAt) {
			t.Errorf("%s: %s %+v, want cancelled %+v", id, got.Status, got.Cancellation, want)
		}
		if got.Queue() != workflow.QueueMessage {
			t.Errorf("%s is not queued for its message update", id)
		}
	}
	if got := must(f.svc.Get(ctx, running.ID)).Status; got != workflow.StatusPending {
		t.Errorf("the running execution's request is %s", got)
	}
	if got := must(f.svc.Get(ctx, decided.ID)).Status; got != workflow.StatusDecided {
		t.Errorf("a decided request became %s", got)
	}
	if calls := ex.Calls(); calls[execARN(1)] != 1 || calls[execARN(4)] != 0 {
		t.Errorf("calls = %v, want one for the execution of two requests and none for one without pending requests", calls)
	}
	if again, err := f.svc.CloseGone(ctx, restarted); err != nil || len(again) != 0 {
		t.Errorf("a second call closed %v, %v", ids(again), err)
	}
}

// A failed check leaves that execution's requests pending and is
// returned; a bad reason changes nothing.
func TestCloseGoneFailures(t *testing.T) {
	t.Parallel()
	f, ex := watched(t, workflow.DefaultExecutionChecks)
	ctx := context.Background()
	a := f.request(t, inExecution(execARN(1), "Approve"))
	ex.Forget(execARN(1))

	for _, reason := range []string{"", strings.Repeat("x", workflow.MaxReasonTextLen+1)} {
		if _, err := f.svc.CloseGone(ctx, reason); workflow.ErrorCode(err) != workflow.EINVALID {
			t.Errorf("reason of %d characters: %v, want EINVALID", len(reason), err)
		}
	}
	throttled := errors.New("ThrottlingException")
	ex.SetErr(throttled)
	closed, err := f.svc.CloseGone(ctx, restarted)
	if !errors.Is(err, throttled) || len(closed) != 0 {
		t.Errorf("CloseGone = %v, %v; want the check's error and nothing closed", ids(closed), err)
	}
	if got := must(f.svc.Get(ctx, a.ID)).Status; got != workflow.StatusPending {
		t.Errorf("the request is %s after a failed check", got)
	}
	ex.SetErr(nil)
	if closed, err := f.svc.CloseGone(ctx, restarted); err != nil || len(closed) != 1 {
		t.Errorf("after the outage: %v, %v", ids(closed), err)
	}
}
