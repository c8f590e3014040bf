package workflow_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// replica is another Service on the fixture's store and task, as a second
// bot replica is.
func (f *fixture) replica() *workflow.Service {
	svc := workflow.NewService(f.store, f.resumer, nil)
	svc.Now, svc.Audit = f.clock, f.audit
	return svc
}

// sweepBoth runs Recover on the fixture's service and a replica at once,
// and returns both reports.
func (f *fixture) sweepBoth(t *testing.T) [2]workflow.RecoverReport {
	t.Helper()
	var reps [2]workflow.RecoverReport
	var wg sync.WaitGroup
	for i, svc := range []*workflow.Service{f.svc, f.replica()} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := svc.Recover(context.Background())
			if err != nil {
				t.Errorf("Recover: %v", err)
			}
			reps[i] = rep
		}()
	}
	wg.Wait()
	return reps
}

// Each reminder and the escalation are done once, by one of two replicas
// sweeping at the same moment, and only when due.
func TestRemindersAndEscalationHappenOnceEach(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, func(r *workflow.Request) {
		q := int64(2)
		r.Quorum, r.Approvers = &q, []string{"U0123ABC", "U0456DEF"}
		r.EscalateTo = []string{"U0BOSS"}
	})
	must(f.svc.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0123ABC"}))

	type step struct {
		after               time.Duration
		reminded, escalated int
	}
	for _, s := range []step{
		{after: 11 * time.Hour},                            // nothing due
		{after: time.Hour, reminded: 1},                    // 50%
		{after: time.Minute},                               // nothing more
		{after: 6 * time.Hour, escalated: 1},               // 75%
		{after: 3*time.Hour + 36*time.Minute, reminded: 1}, // 90%
		{after: time.Hour},                                 // nothing more
	} {
		f.advance(s.after)
		for round := range 2 {
			reps := f.sweepBoth(t)
			reminded := len(reps[0].Reminded) + len(reps[1].Reminded)
			escalated := len(reps[0].Escalated) + len(reps[1].Escalated)
			if round == 1 {
				s.reminded, s.escalated = 0, 0
			}
			if reminded != s.reminded || escalated != s.escalated {
				t.Fatalf("at +%v, round %d: reminded %d, escalated %d; want %d, %d", f.clock().Sub(a.CreatedAt), round, reminded, escalated, s.reminded, s.escalated)
			}
			for _, rep := range reps {
				for _, r := range rep.Reminded {
					want := []string{"U0456DEF"} // who has not approved
					if r.Escalated() {
						want = append(want, "U0BOSS")
					}
					if got := r.StillToDecide(); !cmp.Equal(got, want) {
						t.Errorf("a reminder would mention %v, want %v", got, want)
					}
				}
			}
		}
	}
	if err := f.svc.CanDecide(context.Background(), must(f.svc.Get(context.Background(), a.ID)), "U0BOSS"); err != nil {
		t.Errorf("after the escalation, escalateTo may not decide: %v", err)
	}
	var reminded, escalated int
	for _, e := range f.audit.Events() {
		switch e.Type {
		case workflow.EventReminded:
			reminded++
		case workflow.EventEscalated:
			escalated++
		}
	}
	if reminded != 2 || escalated != 1 {
		t.Errorf("audit: %d reminded, %d escalated events; want 2 and 1", reminded, escalated)
	}
}

func TestOnDeadlineDecidesBeforeTheTaskTimesOut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		onDeadline  string
		wantOutput  string
		wantError   string
		wantCause   string
		wantOutcome workflow.Action
	}{
		{onDeadline: "skip", wantOutput: `{"approvalId":"ID","action":"skip","decidedBy":"deadline","decidedAt":"2026-11-29T10:08:00Z","approvals":[]}`, wantOutcome: workflow.ActionSkip},
		{onDeadline: "reject", wantError: workflow.ErrorRejected, wantCause: "Nobody decided approval ID before its deadline, so it was rejected, as its onDeadline says.", wantOutcome: workflow.ActionReject},
	} {
		t.Run(tt.onDeadline, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds, r.OnDeadline = 600, tt.onDeadline })
			f.advance(8*time.Minute - time.Second)
			if reps := f.sweepBoth(t); len(reps[0].Decided)+len(reps[1].Decided) != 0 {
				t.Fatalf("decided before its time: %+v", reps)
			}
			f.advance(time.Second) // the deadline less OnDeadlineLead
			reps := f.sweepBoth(t)
			decided := append(reps[0].Decided, reps[1].Decided...)
			if len(decided) != 1 || decided[0].Status != workflow.StatusDecided || decided[0].Decision.DecidedBy != workflow.DecidedByDeadline || decided[0].Decision.Action != tt.wantOutcome {
				t.Fatalf("Decided = %+v; want the approval decided once by the deadline", decided)
			}
			task, _ := f.resumer.Task(a.TaskToken.Reveal())
			if task.Results != 1 || task.Output != replaceID(tt.wantOutput, a.ID) || task.Error != tt.wantError || task.Cause != replaceID(tt.wantCause, a.ID) {
				t.Errorf("task = %+v\nwant output %s, error %q, cause %q", task, tt.wantOutput, tt.wantError, tt.wantCause)
			}
		})
	}
}

func replaceID(s, id string) string { return strings.ReplaceAll(s, "ID", id) }

// Heartbeats go out at their interval, once per interval whatever the
// number of replicas; one finding the task closed expires the approval.
func TestHeartbeats(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, func(r *workflow.Request) { h := int64(60); r.HeartbeatSeconds, r.Reminders = &h, []string{} })
	beats := func() int { task, _ := f.resumer.Task(a.TaskToken.Reveal()); return task.Heartbeats }

	f.advance(59 * time.Second)
	f.sweepBoth(t)
	if beats() != 0 {
		t.Fatalf("%d heartbeats before the first was due", beats())
	}
	for i := 1; i <= 3; i++ {
		f.advance(time.Minute)
		reps := f.sweepBoth(t)
		if got := reps[0].Heartbeats + reps[1].Heartbeats; got != 1 {
			t.Errorf("round %d: %d heartbeats recorded, want 1", i, got)
		}
	}
	if got := beats(); got < 3 || got > 6 {
		t.Errorf("the task got %d heartbeats in 3 intervals, want 3 (at most one more per interval from the other replica)", got)
	}

	f.resumer.TimeOut(a.TaskToken.Reveal()) // HeartbeatSeconds ran out, say
	f.advance(time.Minute)
	rep, err := f.svc.Recover(context.Background())
	if err != nil || rep.Expired != 1 {
		t.Fatalf("Recover = %+v, %v; want the approval whose task closed expired", rep, err)
	}
	if got := must(f.svc.Get(context.Background(), a.ID)); got.Status != workflow.StatusExpired {
		t.Errorf("status %s, want expired", got.Status)
	}
	events := f.audit.Events()
	if last := events[len(events)-1]; last.Type != workflow.EventClosed || last.Reason != workflow.ReasonTaskGone {
		t.Errorf("last event %+v, want closed because a heartbeat found the task gone", last)
	}
}

// A heartbeat that fails is reported and sent again by the next sweep.
func TestFailedHeartbeatIsTriedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, func(r *workflow.Request) { h := int64(60); r.HeartbeatSeconds, r.Reminders = &h, []string{} })
	f.advance(time.Minute)
	f.resumer.SetErr(errors.New("sfn: throttled"))
	rep, err := f.svc.Recover(context.Background())
	if err != nil || len(rep.HeartbeatErrors) != 1 || rep.Heartbeats != 0 {
		t.Fatalf("Recover = %+v, %v; want one failed heartbeat", rep, err)
	}
	f.resumer.SetErr(nil)
	rep, err = f.svc.Recover(context.Background())
	if err != nil || rep.Heartbeats != 1 {
		t.Fatalf("Recover = %+v, %v; want the heartbeat sent", rep, err)
	}
	if task, _ := f.resumer.Task(a.TaskToken.Reveal()); task.Heartbeats != 1 {
		t.Errorf("the task got %d heartbeats, want 1", task.Heartbeats)
	}
}

// The sweeper leaves approvals with nothing due alone: no read beyond the
// due list, no write. (Past an hour, an approval moves to the next age
// bucket of the open count once, and that is all.)
func TestRecoverTouchesNothingBeforeItIsDue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, func(r *workflow.Request) { r.EscalateTo = []string{"U0BOSS"} })
	before := must(f.svc.Get(context.Background(), a.ID))
	for _, after := range []time.Duration{30 * time.Minute, 11 * time.Hour} {
		f.advance(after - f.clock().Sub(a.CreatedAt))
		rep, err := f.svc.Recover(context.Background())
		if err != nil || len(rep.Reminded)+len(rep.Escalated)+rep.Expired+rep.Failed != 0 {
			t.Fatalf("Recover at +%s = %+v, %v; want nothing done", after, rep, err)
		}
		if after > time.Hour {
			before.AgeBucket = 1
		}
		if got := must(f.svc.Get(context.Background(), a.ID)); !cmp.Equal(before, got) {
			t.Errorf("Recover at +%s changed an approval with nothing due:\n%s", after, cmp.Diff(before, got))
		}
	}
}
