package slackbot

import (
	"context"
	"slices"
	"testing"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

// heldClaims holds every claim (a decision or a withdrawal being recorded)
// until released, one release per claim.
type heldClaims struct {
	Approvals
	held    chan string // the approval ID of each claim held
	release chan struct{}
}

func (g heldClaims) hold(ctx context.Context, id string) error {
	g.held <- id
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g heldClaims) Claim(ctx context.Context, id string, d workflow.Decision, on workflow.MessageRef) (workflow.Claimed, error) {
	if err := g.hold(ctx, id); err != nil {
		return workflow.Claimed{}, err
	}
	return g.Approvals.Claim(ctx, id, d, on)
}

func (g heldClaims) ClaimWithdrawal(ctx context.Context, id, user, reason string, on workflow.MessageRef) (workflow.Claimed, error) {
	if err := g.hold(ctx, id); err != nil {
		return workflow.Claimed{}, err
	}
	return g.Approvals.ClaimWithdrawal(ctx, id, user, reason, on)
}

// Every click and submission that decides is acked only once its decision
// is recorded: a button, a one-click preset, a decision picked from the
// menu, a submitted form and a withdrawal. While the store has not
// recorded it, Slack has no ack (were the replica to die, the person would
// see an error, and nothing acknowledged would be lost); once it has, the
// ack follows and the execution is resumed.
func TestDecisionsAreAckedOnceRecorded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	g := heldClaims{Approvals: h.svc, held: make(chan string, 1), release: make(chan struct{})}
	h.startBot(testConfig(), g)
	req := workflow.Request{RevisionPresets: []string{"Shorter"}, AllowSkip: true}

	acked := func(env string) bool {
		return slices.ContainsFunc(h.slack.Acks(), func(a fakeslack.Ack) bool { return a.EnvelopeID == env })
	}
	// A click acked at once by anybody (an outsider's, which decides
	// nothing): its ack travels the replica's one socket behind any ack
	// sent before it.
	probe := h.request(workflow.Request{})
	check := func(name string, a workflow.Approval, send func() string, outcome string) {
		t.Helper()
		env := send()
		if id := <-g.held; id != a.ID {
			t.Fatalf("%s: claim of %s held, want %s", name, id, a.ID)
		}
		h.acked(h.click(outsider, probe, "reject"), nil)
		if acked(env) {
			t.Errorf("%s: acked before the decision was recorded", name)
		}
		g.release <- struct{}{}
		h.acked(env, nil)
		h.waitFor(name+": the outcome", func() bool { return h.outcomeShown(a, outcome) })
	}

	a := h.request(req)
	check("button", a, func() string { return h.click(approver, a, "approve") }, "Approved")
	a = h.request(req)
	check("preset", a, func() string { return h.click(approver, a, "preset_0") }, "Changes requested")
	a = h.request(req)
	check("menu", a, func() string {
		env, err := h.slack.Choose(approver, a.Channel, a.MessageTS, "more", "skip")
		if err != nil {
			t.Fatal(err)
		}
		return env
	}, "Skipped")
	a = h.request(req)
	h.click(approver, a, "reject")
	v := h.openView(approver, "reject")
	check("form", a, func() string {
		env, err := h.slack.Submit(approver, v.ID, textInput("reason", "not now"))
		if err != nil {
			t.Fatal(err)
		}
		return env
	}, "Rejected")
	a = h.request(req)
	h.choose(requester, a, "more", "withdraw")
	v = h.openView(requester, "withdraw")
	check("withdrawal", a, func() string {
		env, err := h.slack.Submit(requester, v.ID, textInput("reason", "wrong week"))
		if err != nil {
			t.Fatal(err)
		}
		return env
	}, "Withdrawn")
	if f := h.slack.Failures(); len(f) != 0 {
		t.Errorf("Slack showed errors: %v", f)
	}
}
