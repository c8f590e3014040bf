package workflow_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

func TestDelegationMovesTheRightToDecide(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, nil) // approvers U0123ABC and the group S0456DEF (U0GROUP1)
	ctx := context.Background()

	got, err := f.svc.Delegate(ctx, a.ID, "U0123ABC", "U0DELEGATE", workflow.MessageRef{})
	if err != nil || len(got.Delegations) != 1 {
		t.Fatalf("Delegate = %+v, %v", got.Delegations, err)
	}
	if err := f.svc.CanDecide(ctx, got, "U0123ABC"); workflow.ErrorCode(err) != workflow.EFORBIDDEN {
		t.Errorf("the delegator may still decide: %v", err)
	}
	if err := f.svc.CanDecide(ctx, got, "U0DELEGATE"); err != nil {
		t.Errorf("the delegate may not decide: %v", err)
	}
	// A chain: the group member hands it on too, then the delegate hands
	// it to the group member, who is in a listed group but handed it on.
	f.advance(time.Minute)
	if _, err := f.svc.Delegate(ctx, a.ID, "U0GROUP1", "U0SECOND", workflow.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.CanDecide(ctx, must(f.svc.Get(ctx, a.ID)), "U0GROUP1"); workflow.ErrorCode(err) != workflow.EFORBIDDEN {
		t.Errorf("a group member who handed it on may still decide: %v", err)
	}
	f.advance(time.Minute)
	if _, err := f.svc.Delegate(ctx, a.ID, "U0DELEGATE", "U0GROUP1", workflow.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	back := must(f.svc.Get(ctx, a.ID))
	if err := f.svc.CanDecide(ctx, back, "U0GROUP1"); err != nil {
		t.Errorf("handed back, U0GROUP1 may not decide: %v", err)
	}
	if got, want := back.Deciders(), []string{"S0456DEF", "U0SECOND", "U0GROUP1"}; !cmp.Equal(got, want) {
		t.Errorf("Deciders = %v, want %v", got, want)
	}
	if _, err := f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft, DecidedBy: "U0DELEGATE"}); workflow.ErrorCode(err) != workflow.EFORBIDDEN {
		t.Errorf("a delegate who handed it on decided: %v", err)
	}
	if _, err := f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft, DecidedBy: "U0SECOND"}); err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"from": "U0123ABC", "to": "U0DELEGATE", "at": "2026-11-29T10:00:00Z"},
		map[string]any{"from": "U0GROUP1", "to": "U0SECOND", "at": "2026-11-29T10:01:00Z"},
		map[string]any{"from": "U0DELEGATE", "to": "U0GROUP1", "at": "2026-11-29T10:02:00Z"},
	}
	if diff := cmp.Diff(want, output(t, f, a)["delegations"]); diff != "" {
		t.Errorf("delegations (-want +got):\n%s", diff)
	}
}

func TestDelegationRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		edit     func(*workflow.Request)
		before   func(*fixture, workflow.Approval)
		from, to string
		wantCode string
	}{
		{name: "not allowed", edit: func(r *workflow.Request) { no := false; r.AllowDelegation = &no }, from: "U0123ABC", to: "U0OTHER", wantCode: workflow.EINVALID},
		{name: "to a group", from: "U0123ABC", to: "S0456DEF", wantCode: workflow.EINVALID},
		{name: "to oneself", from: "U0123ABC", to: "U0123ABC", wantCode: workflow.EINVALID},
		{name: "to the requester", from: "U0123ABC", to: "U0999XYZ", wantCode: workflow.EINVALID},
		{name: "by a stranger", from: "U0STRANGER", to: "U0OTHER", wantCode: workflow.EFORBIDDEN},
		{name: "by the requester", from: "U0999XYZ", to: "U0OTHER", wantCode: workflow.EFORBIDDEN},
		{name: "twice", before: func(f *fixture, a workflow.Approval) {
			must(f.svc.Delegate(context.Background(), a.ID, "U0123ABC", "U0OTHER", workflow.MessageRef{}))
		}, from: "U0123ABC", to: "U0THIRD", wantCode: workflow.EFORBIDDEN},
		{name: "after approving", edit: quorum(2), before: func(f *fixture, a workflow.Approval) {
			must(f.svc.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0123ABC"}))
		}, from: "U0123ABC", to: "U0OTHER", wantCode: workflow.EINVALID},
		{name: "to somebody who approved", edit: quorum(2), before: func(f *fixture, a workflow.Approval) {
			must(f.svc.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0456DEF"}))
		}, from: "U0123ABC", to: "U0456DEF", wantCode: workflow.EINVALID},
		{name: "decided", before: func(f *fixture, a workflow.Approval) {
			must(f.svc.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft, DecidedBy: "U0123ABC"}))
		}, from: "U0GROUP1", to: "U0OTHER", wantCode: workflow.ECONFLICT},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, tt.edit)
			if tt.before != nil {
				tt.before(f, a)
			}
			before := must(f.svc.Get(context.Background(), a.ID))
			_, err := f.svc.Delegate(context.Background(), a.ID, tt.from, tt.to, workflow.MessageRef{})
			if workflow.ErrorCode(err) != tt.wantCode {
				t.Fatalf("err = %v, want code %q", err, tt.wantCode)
			}
			if after := must(f.svc.Get(context.Background(), a.ID)); !cmp.Equal(before, after) {
				t.Errorf("a refused delegation changed the approval:\n%s", cmp.Diff(before, after))
			}
		})
	}
}

func TestSelfApproval(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	a := f.request(t, func(r *workflow.Request) { r.AllowSelfApproval = true })
	if _, err := f.svc.Delegate(ctx, a.ID, "U0123ABC", "U0999XYZ", workflow.MessageRef{}); err != nil {
		t.Fatalf("with allowSelfApproval the requester may be a delegate: %v", err)
	}
	got, err := f.svc.Decide(ctx, a.ID, approve("U0999XYZ"))
	if err != nil || got.Status != workflow.StatusDecided {
		t.Fatalf("the requester's own approval = %s, %v; want decided", got.Status, err)
	}
}

// PendingFor lists what a delegate and, once escalated, an escalation
// target may decide, and leaves out what a delegator handed on.
func TestPendingForHonoursDelegationAndEscalation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	handed := f.request(t, nil)
	must(f.svc.Delegate(ctx, handed.ID, "U0123ABC", "U0DELEGATE", workflow.MessageRef{}))
	f.advance(time.Second)
	escalating := f.request(t, func(r *workflow.Request) {
		r.EscalateTo, r.EscalateAfter, r.Reminders = []string{"U0BOSS"}, "1h", []string{}
	})
	f.advance(time.Second)
	self := f.request(t, func(r *workflow.Request) {
		r.AllowSelfApproval, r.Approvers = true, append(r.Approvers, r.RequestedBy)
	})

	ids := func(user string) []string {
		t.Helper()
		list, err := f.svc.PendingFor(ctx, user, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range list {
			out = append(out, a.ID)
		}
		return out
	}
	check := func(user string, want ...string) {
		t.Helper()
		if got := ids(user); !cmp.Equal(want, got) {
			t.Errorf("PendingFor(%s) = %v, want %v", user, got, want)
		}
	}
	check("U0DELEGATE", handed.ID)
	check("U0123ABC", escalating.ID, self.ID)
	check("U0BOSS")
	check("U0999XYZ", self.ID)

	f.advance(time.Hour)
	rep, err := f.svc.Recover(ctx)
	if err != nil || len(rep.Escalated) != 1 || rep.Escalated[0].ID != escalating.ID {
		t.Fatalf("Recover = %+v, %v; want the escalation", rep, err)
	}
	check("U0BOSS", escalating.ID)
}

// A hand-over whose note nobody recorded posted (the replica that recorded
// it died, or Slack refused the note) is taken on by one sweep after
// HandOverNoticeGrace, once; one recorded posted never is.
func TestUntoldHandOverIsToldBySweep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	lost, told := f.request(t, nil), f.request(t, nil)
	for _, a := range []workflow.Approval{lost, told} {
		if _, err := f.svc.Delegate(ctx, a.ID, "U0123ABC", "U0DELEGATE", workflow.MessageRef{}); err != nil {
			t.Fatal(err)
		}
	}
	handed := must(f.svc.Get(ctx, told.ID)).Delegations[0]
	if err := f.svc.HandOverTold(ctx, told.ID, handed.At); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.HandOverTold(ctx, told.ID, handed.At); err != nil {
		t.Fatalf("recording it twice: %v", err)
	}

	f.advance(workflow.HandOverNoticeGrace - time.Second)
	if rep, err := f.svc.Recover(ctx); err != nil || len(rep.HandedOver) != 0 {
		t.Fatalf("Recover within the grace = %+v, %v; want nothing told", rep.HandedOver, err)
	}
	f.advance(time.Second)
	rep, err := f.svc.Recover(ctx)
	if err != nil || len(rep.HandedOver) != 1 {
		t.Fatalf("Recover after the grace = %+v, %v; want the one untold hand-over", rep.HandedOver, err)
	}
	if h := rep.HandedOver[0]; h.Approval.ID != lost.ID || h.Delegation.To != "U0DELEGATE" || h.Delegation.Told.IsZero() {
		t.Errorf("told %+v", h)
	}
	if rep, err := f.svc.Recover(ctx); err != nil || len(rep.HandedOver) != 0 {
		t.Errorf("a second sweep = %+v, %v; want nothing told again", rep.HandedOver, err)
	}
	if got := must(f.svc.Get(ctx, lost.ID)); got.Status != workflow.StatusPending || got.Due() != workflow.NeverDue && !got.Due().After(f.svc.Now()) {
		t.Errorf("after the sweep: status %s, due %s", got.Status, got.Due())
	}
}
