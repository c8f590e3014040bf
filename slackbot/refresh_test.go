package slackbot

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

// A vote's progress update can reach Slack after another replica showed
// the outcome (Slack has no conditional update), bringing the buttons
// back; the refresh then puts the outcome back. When that correction fails
// (a Slack 5xx, as the soak found, or a 429), the message must still end
// up showing the outcome, though the record already says it does.
func TestLateProgressUpdateNeverLeavesButtons(t *testing.T) {
	t.Parallel()
	for name, fault := range map[string]fakeslack.Fault{
		"5xx": {Status: http.StatusBadGateway},
		"429": {Status: http.StatusTooManyRequests, RetryAfter: 1},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lateProgressUpdate(t, fault)
		})
	}
}

func lateProgressUpdate(t *testing.T, fault fakeslack.Fault) {
	hold := make(chan struct{})
	held := make(chan struct{})
	var updates atomic.Int32
	h := newHarness(t, func(o *fakeslack.Options) {
		o.Faults = func(method string, _ url.Values) fakeslack.Fault {
			if method != "chat.update" {
				return fakeslack.Fault{}
			}
			switch updates.Add(1) {
			case 1: // the vote's progress update, held until the outcome is shown
				close(held)
				<-hold
			case 3: // the refresh's correction
				return fault
			}
			return fakeslack.Fault{}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	u := newUpdater(h.api(nil), h.svc, testConfig(), h.log)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		u.run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})

	a := h.request(workflow.Request{Quorum: quorumOf(2)})
	on := workflow.MessageRef{Channel: a.Channel, TS: a.MessageTS}
	vote, err := h.svc.DecideOn(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: approver}, on)
	if err != nil || vote.Status != workflow.StatusPending {
		t.Fatalf("vote: %s, %v", vote.Status, err)
	}
	u.refresh(vote)
	<-held

	// Another replica takes the decision that reaches the quorum and shows
	// the outcome.
	final, err := h.svc.DecideOn(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: member}, on)
	if err != nil || final.Status != workflow.StatusDecided {
		t.Fatalf("decision: %s, %v", final.Status, err)
	}
	if _, _, _, err := h.api(nil).UpdateMessage(final.Channel, final.MessageTS, blocks.OutcomeMessage(final).Options()...); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.MessageSynced(ctx, final.ID); err != nil {
		t.Fatal(err)
	}

	close(hold) // the late progress update lands, and the correction fails
	h.waitFor("the correction's failure", func() bool { return updates.Load() >= 3 })
	h.waitFor("the outcome on the message again", func() bool { return h.outcomeShown(final, "Approved") })
	if m := h.message(final); m.Text != blocks.OutcomeMessage(final).Text {
		t.Errorf("message text %q, want the outcome's %q", m.Text, blocks.OutcomeMessage(final).Text)
	}
}

// A progress update that Slack's 429 holds back must not go out with what
// was read before the wait: the approval may be decided and its outcome
// shown meanwhile (the soak found a hand-over's refresh, held 2.6 s by a
// 429, bringing the buttons back 0.6 s after the outcome, and the replica
// killed before its correction). The message never shows the buttons
// again once it showed the outcome.
func TestHeldBackProgressIsReadWhenSent(t *testing.T) {
	t.Parallel()
	const retryAfter = 2 * time.Second
	var updates atomic.Int32
	limited := make(chan struct{})
	h := newHarness(t, func(o *fakeslack.Options) {
		o.Faults = func(method string, _ url.Values) fakeslack.Fault {
			if method == "chat.update" && updates.Add(1) == 1 {
				close(limited)
				return fakeslack.Fault{Status: http.StatusTooManyRequests, RetryAfter: int(retryAfter / time.Second)}
			}
			return fakeslack.Fault{}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	u := newUpdater(h.api(nil), h.svc, testConfig(), h.log)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		u.run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})

	a := h.request(workflow.Request{Quorum: quorumOf(2)})
	on := workflow.MessageRef{Channel: a.Channel, TS: a.MessageTS}
	vote, err := h.svc.DecideOn(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: approver}, on)
	if err != nil {
		t.Fatal(err)
	}
	u.refresh(vote)
	<-limited

	// Another replica decides and shows the outcome while Slack holds
	// this replica's updates back: a quarter into the Retry-After. (Were
	// this late, the test could only miss the fault, never fail.)
	time.Sleep(retryAfter / 4)
	final, err := h.svc.DecideOn(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: member}, on)
	if err != nil || final.Status != workflow.StatusDecided {
		t.Fatalf("decision: %s, %v", final.Status, err)
	}
	if _, _, _, err := h.api(nil).UpdateMessage(final.Channel, final.MessageTS, blocks.OutcomeMessage(final).Options()...); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.MessageSynced(ctx, final.ID); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the refresh to end", func() bool {
		u.mu.Lock()
		defer u.mu.Unlock()
		return len(u.refreshes) == 0
	})
	versions := append(h.slack.History(final.Channel, final.MessageTS), h.message(final))
	shown := false
	for i, v := range versions {
		buttons := len(fakeslack.ButtonActions(v.Blocks))
		if shown && buttons > 0 {
			t.Errorf("version %d of the message has %d buttons after the outcome was shown: %q", i, buttons, v.Text)
		}
		shown = shown || strings.Contains(v.Text, "Approved")
	}
	if !h.outcomeShown(final, "Approved") {
		t.Errorf("the message does not show the outcome: %q", h.message(final).Text)
	}
}
