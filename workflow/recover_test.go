package workflow_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// gatedResumer holds each resume until released, then resumes only if the
// context it was given is still alive, as a real call would.
type gatedResumer struct {
	*workflowtest.Resumer
	entered chan struct{}
	release chan struct{}
}

func (g gatedResumer) Fail(ctx context.Context, a workflow.Approval, name, cause string) error {
	g.entered <- struct{}{}
	<-g.release
	if err := ctx.Err(); err != nil {
		return err
	}
	return g.Resumer.Fail(ctx, a, name, cause)
}

// A sweep whose deadline passes while it resumes an approval it claimed
// still carries that approval to its outcome (instead of leaving it claimed
// for a whole lease), and starts no other.
func TestRecoverFinishesWhatItStartedWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gate := gatedResumer{Resumer: f.resumer, entered: make(chan struct{}, 1), release: make(chan struct{})}
	svc := workflow.NewService(f.store, gate, nil)
	svc.Now = f.clock
	first := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 60 })
	f.advance(time.Second)
	second := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 60 })
	f.advance(time.Hour)

	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		rep workflow.RecoverReport
		err error
	}
	done := make(chan result, 1)
	go func() { rep, err := svc.Recover(ctx); done <- result{rep, err} }()
	<-gate.entered
	cancel() // the sweep's deadline passes mid-recovery
	close(gate.release)
	got := <-done

	if !errors.Is(got.err, context.Canceled) || got.rep.Expired != 1 || got.rep.Failed != 0 {
		t.Errorf("Recover = %+v, %v; want 1 expired, then stopped", got.rep, got.err)
	}
	if a := must(f.svc.Get(context.Background(), first.ID)); a.Status != workflow.StatusExpired {
		t.Errorf("the approval being expired when the sweep ended is %s, want expired", a.Status)
	}
	if task, _ := f.resumer.Task(first.TaskToken.Reveal()); task.Error != workflow.ErrorApprovalExpired {
		t.Errorf("its task got %q, want %s", task.Error, workflow.ErrorApprovalExpired)
	}
	if a := must(f.svc.Get(context.Background(), second.ID)); a.Status != workflow.StatusPending {
		t.Errorf("an approval after the deadline was started: %s", a.Status)
	}
}

func TestRecoverBudgetBoundsEachApproval(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gate := gatedResumer{Resumer: f.resumer, entered: make(chan struct{}, 1), release: make(chan struct{})}
	svc := workflow.NewService(f.store, gate, nil)
	svc.Now, svc.RecoverBudget = f.clock, time.Nanosecond
	a := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 60 })
	f.advance(time.Hour)
	done := make(chan workflow.RecoverReport, 1)
	go func() { rep, _ := svc.Recover(context.Background()); done <- rep }()
	<-gate.entered
	close(gate.release)
	if rep := <-done; rep.Failed != 1 {
		t.Errorf("Recover = %+v, want the resume that outran its budget counted as failed", rep)
	}
	if got := must(f.svc.Get(context.Background(), a.ID)); got.Status != workflow.StatusClaimed {
		t.Errorf("status %s, want claimed (a later sweep takes it over)", got.Status)
	}
}

func TestFailedMessageUpdatesBackOffPerRecordAndGiveUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.MessageRetry = workflow.MessageRetry{Base: time.Minute, Max: 3 * time.Minute, Attempts: 4}
	ctx := context.Background()
	failing := f.request(t, nil)
	must(f.svc.Decide(ctx, failing.ID, approve("U0123ABC")))
	f.advance(time.Second)
	other := f.request(t, nil)
	must(f.svc.Decide(ctx, other.ID, approve("U0123ABC")))

	due := func() []string { return ids(must(f.svc.Unsynced(ctx, 10))) }
	if got := due(); len(got) != 2 || got[0] != failing.ID {
		t.Fatalf("due = %v, want both, the older first", got)
	}
	for i, wantDelay := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute} {
		a, err := f.svc.MessageFailed(ctx, failing.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a.MessageAttempts != i+1 || !a.MessageRetryAt.Equal(f.now.Add(wantDelay)) || a.MessageGaveUp {
			t.Fatalf("failure %d: attempts %d, retry at +%v, gave up %v; want %d, +%v", i+1, a.MessageAttempts, a.MessageRetryAt.Sub(f.now), a.MessageGaveUp, i+1, wantDelay)
		}
		if got := due(); len(got) != 1 || got[0] != other.ID {
			t.Fatalf("failure %d: due = %v, want only %s until the retry time", i+1, got, other.ID)
		}
		f.advance(wantDelay)
		if got := due(); len(got) != 2 {
			t.Fatalf("failure %d: due after the delay = %v, want both", i+1, got)
		}
	}
	a, err := f.svc.MessageFailed(ctx, failing.ID)
	if err != nil || !a.MessageGaveUp || a.MessageAttempts != 4 || a.Queue() != "" {
		t.Fatalf("4th failure = attempts %d, gave up %v, queue %q, %v; want given up, off the queue", a.MessageAttempts, a.MessageGaveUp, a.Queue(), err)
	}
	if got := due(); len(got) != 1 || got[0] != other.ID {
		t.Errorf("due after giving up = %v, want only %s", got, other.ID)
	}
	if _, err := f.svc.MessageFailed(ctx, failing.ID); workflow.ErrorCode(err) != workflow.ECONFLICT {
		t.Errorf("a failure after giving up = %v, want ECONFLICT", err)
	}
}

// Recover reports how many approvals are open after it, by age: the
// sweeper's gauge, kept by the store without reading the approvals. An
// approval moves to the next bucket when the sweep finds it older.
func TestRecoverReportsTheOpenApprovals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	overdue := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 60 })
	old := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 0 })
	f.advance(time.Hour)
	f.request(t, nil) // waiting
	f.advance(time.Minute)
	claimed := f.request(t, nil)
	d := workflow.Decision{Action: workflow.ActionApprove, DecidedBy: "U0123ABCD", DraftIndex: workflow.NoDraft}
	if _, err := f.store.Update(context.Background(), claimed.ID, func(a *workflow.Approval) error { return a.Claim(d, f.clock()) }); err != nil {
		t.Fatal(err)
	}

	rep, err := f.svc.Recover(context.Background())
	if err != nil || rep.Expired != 1 {
		t.Fatalf("Recover = %+v, %v; want the overdue approval expired", rep, err)
	}
	if diff := cmp.Diff([]int{2, 1, 0, 0}, rep.Open); diff != "" {
		t.Errorf("Open (-want +got): under an hour the waiting and the claimed approval, under a day the one an hour old (not %s, expired):\n%s", overdue.ID, diff)
	}
	if got := must(f.svc.Get(context.Background(), old.ID)); got.AgeBucket != 1 {
		t.Errorf("the approval an hour old is in age bucket %d, want 1", got.AgeBucket)
	}

	f.store.SetErr(errors.New("dynamodb: unreachable"))
	if rep, err := f.svc.Recover(context.Background()); err == nil || rep.Open != nil {
		t.Errorf("Recover on a failing store = %+v, %v; want an error and no count", rep, err)
	}
}
