package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// watched is a fixture whose service checks executions with ex.
func watched(t *testing.T, checks workflow.ExecutionChecks) (*fixture, *workflowtest.Executions) {
	t.Helper()
	f := newFixture(t)
	ex := workflowtest.NewExecutions()
	f.svc.Executions, f.svc.ExecutionChecks = ex, checks
	return f, ex
}

func execARN(n int) string {
	return fmt.Sprintf("arn:aws:states:us-east-1:123456789012:execution:publish:run-%03d", n)
}

// An execution whose end was never reported is noticed by Recover: its
// pending requests are closed with the reason, running ones are left, and
// each execution costs one call however many requests it holds.
func TestRecoverClosesRequestsOfExecutionsThatEnded(t *testing.T) {
	t.Parallel()
	f, ex := watched(t, workflow.ExecutionChecks{PerRun: 10, Every: 10 * time.Minute, After: 2 * time.Minute})
	ctx := context.Background()
	aborted := []workflow.Approval{f.request(t, inExecution(execARN(1), "Approve")), f.request(t, inExecution(execARN(1), "Review"))}
	gone := f.request(t, inExecution(execARN(2), "Approve"))
	running := f.request(t, inExecution(execARN(3), "Approve"))
	succeeded := f.request(t, inExecution(execARN(4), "Approve"))
	express := f.request(t, inExecution("arn:aws:states:us-east-1:123456789012:express:publish:run-6:abc", "Approve"))
	ex.Forget(express.ExecutionARN) // DescribeExecution does not know Express executions
	stop := f.now.Add(time.Second)
	ex.End(execARN(1), workflow.ExecutionAborted, stop)
	ex.Forget(execARN(2))
	ex.End(execARN(4), workflow.ExecutionSucceeded, stop)
	f.advance(3 * time.Minute)
	young := f.request(t, inExecution(execARN(5), "Approve")) // left to its event
	ex.End(execARN(5), workflow.ExecutionAborted, f.now)
	f.advance(time.Minute)

	rep, err := f.svc.Recover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Checked != 4 || len(rep.Closed) != 4 || rep.Failed != 0 {
		t.Fatalf("Recover = checked %d, closed %v, failed %d; want 4 checked, 4 closed", rep.Checked, ids(rep.Closed), rep.Failed)
	}
	for a, want := range map[string]workflow.Cancellation{
		aborted[0].ID: {Reason: workflow.ReasonExecutionAborted, StoppedAt: stop},
		aborted[1].ID: {Reason: workflow.ReasonExecutionAborted, StoppedAt: stop},
		gone.ID:       {Reason: workflow.ReasonExecutionNotFound},
		succeeded.ID:  {Reason: workflow.ReasonExecutionSucceeded, StoppedAt: stop},
	} {
		got := must(f.svc.Get(ctx, a))
		if got.Status != workflow.StatusCancelled || got.Cancellation == nil || got.Cancellation.Reason != want.Reason || !got.Cancellation.StoppedAt.Equal(want.StoppedAt) {
			t.Errorf("%s: %s %+v, want cancelled %+v", a, got.Status, got.Cancellation, want)
		}
	}
	for _, a := range []workflow.Approval{running, young, express} {
		if got := must(f.svc.Get(ctx, a.ID)).Status; got != workflow.StatusPending {
			t.Errorf("%s (%s) is %s, want pending", a.ID, a.ExecutionARN, got)
		}
	}
	calls := ex.Calls()
	if calls[execARN(1)] != 1 || calls[execARN(5)] != 0 || calls[express.ExecutionARN] != 0 {
		t.Errorf("calls = %v; want one for the execution of two requests, none for the young or the Express one", calls)
	}
}

// Each run asks about at most PerRun executions, one not checked within
// Every, those known running longest ago first; so a large backlog is
// walked through in bounded steps and starts over once Every has passed.
func TestRecoverChecksABoundedNumberOfExecutionsPerRun(t *testing.T) {
	t.Parallel()
	f, ex := watched(t, workflow.ExecutionChecks{PerRun: 10, Every: 10 * time.Minute, After: time.Minute})
	ctx := context.Background()
	const n = 25
	for i := range n {
		f.request(t, inExecution(execARN(i), "Approve"))
		f.advance(time.Second)
	}
	f.advance(time.Minute)

	var order []string
	seen := map[string]bool{}
	for run, want := range []int{10, 10, 5, 0} {
		before := ex.Calls()
		rep, err := f.svc.Recover(ctx)
		if err != nil || rep.Checked != want {
			t.Fatalf("run %d: checked %d, %v; want %d", run, rep.Checked, err, want)
		}
		for arn, c := range ex.Calls() {
			if c != before[arn] {
				if seen[arn] {
					t.Errorf("run %d checked %s again within Every", run, arn)
				}
				seen[arn] = true
				order = append(order, arn)
			}
		}
		f.advance(time.Minute)
	}
	if len(seen) != n {
		t.Errorf("checked %d executions in all, want %d", len(seen), n)
	}
	first := map[string]bool{}
	for i := range 10 {
		first[execARN(i)] = true
	}
	for _, arn := range order[:10] {
		if !first[arn] {
			t.Errorf("the first run checked %s, not one of the 10 oldest", arn)
		}
	}

	f.advance(10 * time.Minute)
	rep := must(f.svc.Recover(ctx))
	if rep.Checked != 10 || ex.Calls()[execARN(0)] != 2 {
		t.Errorf("after Every: checked %d, the oldest %d times; want 10, and the oldest again", rep.Checked, ex.Calls()[execARN(0)])
	}
}

func TestRecoverReportsFailedChecksAndTriesAgainLater(t *testing.T) {
	t.Parallel()
	f, ex := watched(t, workflow.ExecutionChecks{PerRun: 5, Every: time.Minute, After: time.Minute})
	ctx := context.Background()
	a := f.request(t, inExecution(execARN(1), "Approve"))
	ex.End(execARN(1), workflow.ExecutionFailed, f.now)
	f.advance(2 * time.Minute)
	ex.SetErr(errors.New("ThrottlingException: Rate exceeded"))
	rep := must(f.svc.Recover(ctx))
	if rep.Checked != 1 || rep.Failed != 1 || len(rep.CheckErrors) != 1 || len(rep.Closed) != 0 {
		t.Fatalf("throttled Recover = %+v; want one failed check", rep)
	}
	if got := must(f.svc.Get(ctx, a.ID)).Status; got != workflow.StatusPending {
		t.Fatalf("a failed check changed the request to %s", got)
	}
	ex.SetErr(nil)
	if rep := must(f.svc.Recover(ctx)); rep.Checked != 0 {
		t.Errorf("checked again %d times before Every passed", rep.Checked)
	}
	f.advance(time.Minute)
	if rep := must(f.svc.Recover(ctx)); len(rep.Closed) != 1 || rep.Closed[0].Cancellation.Reason != workflow.ReasonExecutionFailed {
		t.Errorf("Recover after Every closed %v, want %s", ids(rep.Closed), a.ID)
	}
}

func TestRecoverWithoutExecutionsChecksNothing(t *testing.T) {
	t.Parallel()
	f, ex := watched(t, workflow.ExecutionChecks{PerRun: 0, Every: time.Minute, After: time.Minute})
	f.request(t, inExecution(execARN(1), "Approve"))
	ex.Forget(execARN(1))
	f.advance(time.Hour)
	if rep := must(f.svc.Recover(context.Background())); rep.Checked != 0 || len(ex.Calls()) != 0 {
		t.Errorf("Recover with PerRun 0 checked %d executions", rep.Checked)
	}
}
