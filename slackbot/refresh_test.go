package slackbot

import (
	"context"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

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
