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

const endedExec = "arn:aws:states:us-east-1:123456789012:execution:publish:ended"

func ended(status workflow.ExecutionStatus, at time.Time) workflow.Execution {
	return workflow.Execution{ARN: endedExec, Status: status, StoppedAt: at}
}

func TestCloseExecutionClosesItsPendingRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	first := f.request(t, inExecution(endedExec, "Approve"))
	mapItem := f.request(t, inExecution(endedExec, "Approve"))
	review := f.request(t, inExecution(endedExec, "Review"))
	claimed := f.request(t, inExecution(endedExec, "Approve"))
	f.resumer.SetErr(errors.New("connection reset"))
	_, _ = f.svc.Decide(ctx, claimed.ID, approve("U0123ABC")) // its resume is in flight
	f.resumer.SetErr(nil)
	decided := f.request(t, inExecution(endedExec, "Approve"))
	must(f.svc.Decide(ctx, decided.ID, approve("U0123ABC")))
	other := f.request(t, inExecution(endedExec+"-2", "Approve"))
	stopped := f.now
	f.advance(time.Minute)
	redriven := f.request(t, inExecution(endedExec, "Approve")) // a later run of the same execution
	f.advance(time.Second)

	closed, err := f.svc.CloseExecution(ctx, ended(workflow.ExecutionAborted, stopped))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{first.ID, mapItem.ID, review.ID}
	got := ids(closed)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("closed %v, want %v", got, want)
	}
	for _, a := range closed {
		stored := must(f.svc.Get(ctx, a.ID))
		c := stored.Cancellation
		if stored.Status != workflow.StatusCancelled || c == nil || c.Reason != workflow.ReasonExecutionAborted ||
			!c.StoppedAt.Equal(stopped) || !stored.ClosedAt.Equal(f.now) || stored.TaskToken != "" {
			t.Errorf("%s: status %s, cancellation %+v, closed at %v, token kept %v", a.ID, stored.Status, c, stored.ClosedAt, stored.TaskToken != "")
		}
		if stored.Queue() != workflow.QueueMessage {
			t.Errorf("%s is on queue %q, want its message to be updated", a.ID, stored.Queue())
		}
	}
	for id, status := range map[string]workflow.Status{
		claimed.ID: workflow.StatusClaimed, decided.ID: workflow.StatusDecided, other.ID: workflow.StatusPending, redriven.ID: workflow.StatusPending,
	} {
		if got := must(f.svc.Get(ctx, id)).Status; got != status {
			t.Errorf("%s is %s, want %s", id, got, status)
		}
	}
	pending := ids(must(f.svc.PendingFor(ctx, "U0123ABC", 20)))
	if !slices.Equal(pending, []string{other.ID, redriven.ID}) {
		t.Errorf("pending = %v, want only %s and %s", pending, other.ID, redriven.ID)
	}
	clicked, err := f.svc.Decide(ctx, first.ID, approve("U0123ABC"))
	if workflow.ErrorCode(err) != workflow.ECANCELLED || workflow.ErrorMessage(err) != "This request was cancelled: execution aborted." {
		t.Errorf("a click on a closed request = %v (%s), want ECANCELLED with the reason", err, clicked.Status)
	}
	if task, _ := f.resumer.Task(first.TaskToken.Reveal()); task.Results != 0 {
		t.Error("a click on a closed request resumed its task")
	}
}

func TestCloseExecutionGivesTheReasonOfEachStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status workflow.ExecutionStatus
		reason string
	}{
		{workflow.ExecutionAborted, "execution aborted"},
		{workflow.ExecutionTimedOut, "execution timed out"},
		{workflow.ExecutionFailed, "execution failed"},
		{workflow.ExecutionSucceeded, "execution succeeded"},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, inExecution(endedExec, "Approve"))
			closed, err := f.svc.CloseExecution(context.Background(), ended(tt.status, f.now))
			if err != nil || len(closed) != 1 || closed[0].ID != a.ID || closed[0].Cancellation.Reason != tt.reason {
				t.Fatalf("CloseExecution = %v, %v; want %s closed with %q", ids(closed), err, a.ID, tt.reason)
			}
			if !closed[0].Cancellation.ExecutionEnded() {
				t.Error("the cancellation does not say its execution ended")
			}
		})
	}
}

// Duplicate, late and out-of-order events change nothing more; a status
// that has not ended changes nothing.
func TestCloseExecutionIsIdempotent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	a := f.request(t, inExecution(endedExec, "Approve"))
	stop := f.now
	f.advance(time.Second)
	if closed := must(f.svc.CloseExecution(ctx, ended(workflow.ExecutionAborted, stop))); len(closed) != 1 {
		t.Fatalf("first event closed %d, want 1", len(closed))
	}
	before := must(f.svc.Get(ctx, a.ID))
	f.advance(time.Minute)
	tests := []struct {
		name string
		x    workflow.Execution
	}{
		{"the same event again", ended(workflow.ExecutionAborted, stop)},
		{"another end", ended(workflow.ExecutionFailed, stop.Add(time.Second))},
		{"RUNNING after ABORTED", ended(workflow.ExecutionRunning, time.Time{})},
		{"PENDING_REDRIVE", ended(workflow.ExecutionPendingRedrive, time.Time{})},
	}
	for _, tt := range tests {
		closed, err := f.svc.CloseExecution(ctx, tt.x)
		if err != nil || len(closed) != 0 {
			t.Errorf("%s: closed %v, %v; want nothing", tt.name, ids(closed), err)
		}
	}
	if after := must(f.svc.Get(ctx, a.ID)); after.Cancellation.Reason != before.Cancellation.Reason || !after.ClosedAt.Equal(before.ClosedAt) {
		t.Errorf("later events changed the closed request: %+v at %v, was %+v at %v", after.Cancellation, after.ClosedAt, before.Cancellation, before.ClosedAt)
	}

	running := f.request(t, inExecution(endedExec+"-running", "Approve"))
	if closed, err := f.svc.CloseExecution(ctx, workflow.Execution{ARN: running.ExecutionARN, Status: workflow.ExecutionRunning}); err != nil || len(closed) != 0 {
		t.Errorf("RUNNING closed %v, %v", ids(closed), err)
	}
	if got := must(f.svc.Get(ctx, running.ID)).Status; got != workflow.StatusPending {
		t.Errorf("a RUNNING event changed a request to %s", got)
	}
}

func TestCloseExecutionRefusesBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, inExecution(endedExec, "Approve"))
	tests := []struct {
		name string
		x    workflow.Execution
	}{
		{"no ARN", workflow.Execution{Status: workflow.ExecutionAborted}},
		{"a state machine ARN", workflow.Execution{ARN: "arn:aws:states:us-east-1:123456789012:stateMachine:publish", Status: workflow.ExecutionAborted}},
		{"a task token as ARN", workflow.Execution{ARN: token, Status: workflow.ExecutionAborted}},
		{"unknown status", workflow.Execution{ARN: endedExec, Status: "STOPPED"}},
	}
	for _, tt := range tests {
		closed, err := f.svc.CloseExecution(context.Background(), tt.x)
		if workflow.ErrorCode(err) != workflow.EINVALID || len(closed) != 0 {
			t.Errorf("%s: %v, %v; want EINVALID", tt.name, ids(closed), err)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("%s: the error quotes the token", tt.name)
		}
	}
	if got := must(f.svc.Get(context.Background(), a.ID)).Status; got != workflow.StatusPending {
		t.Errorf("a refused call changed the request to %s", got)
	}
}

func TestCloseExecutionReturnsStoreFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, inExecution(endedExec, "Approve"))
	f.store.SetErr(errors.New("ProvisionedThroughputExceededException"))
	closed, err := f.svc.CloseExecution(context.Background(), ended(workflow.ExecutionAborted, f.now))
	if err == nil || workflow.ErrorCode(err) != "" || len(closed) != 0 {
		t.Fatalf("CloseExecution in an outage = %v, %v; want the store's error", ids(closed), err)
	}
	f.store.SetErr(nil)
	if closed := must(f.svc.CloseExecution(context.Background(), ended(workflow.ExecutionAborted, f.now))); len(closed) != 1 || closed[0].ID != a.ID {
		t.Errorf("the repeated call closed %v, want %s", ids(closed), a.ID)
	}
}
