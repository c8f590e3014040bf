package slackbot

import (
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow"
)

// Two replicas, the real slack-go client and a fake Slack that allows 10
// updates a second in bursts of 5: no ceiling is configured, the replicas
// find the pace from the 429s, and while messages wait both sweepers queue
// them all; still each message is updated once, with few calls to spare.
func TestReplicasShareTheUpdateLimitWithoutCeiling(t *testing.T) {
	t.Parallel()
	const n = 40
	h := newHarness(t, func(o *fakeslack.Options) {
		o.RateLimits = map[string]fakeslack.RateLimit{"chat.update": {Limit: 600, Per: time.Minute, Burst: 5}}
	})
	cfg := testConfig()
	cfg.UpdateRate = pacing.Rate{} // no ceiling: Slack's answers alone
	cfg.SweepGrace = -1            // every sweep queues every stale message
	cfg.UpdateAttempts = 1         // only 429s are retried by the updater itself
	cfg.ShutdownTimeout = 10 * time.Second
	h.startBot(cfg, nil)
	h.startBot(cfg, nil)
	var list []workflow.Approval
	for range n {
		list = append(list, h.request(workflow.Request{}))
	}
	for _, a := range list {
		h.click(approver, a, "approve")
	}
	h.waitFor("every message updated and replied to", func() bool {
		for _, a := range list {
			if !h.outcomeShown(a, "Approved") || len(h.slack.Replies(a.Channel, a.MessageTS)) == 0 {
				return false
			}
		}
		return true
	})
	updates := 0
	for _, a := range list {
		updates += h.message(a).Updates
	}
	t.Logf("%d messages: %d updates, %d chat.update calls, %d 429s", n, updates, h.slack.Calls("chat.update"), h.slack.Limited("chat.update"))
	for _, a := range list {
		if got := len(h.slack.Replies(a.Channel, a.MessageTS)); got != 1 {
			t.Errorf("%s has %d thread replies, want 1", a.ID, got)
		}
	}
	if updates > n+n/10 {
		t.Errorf("%d messages were updated %d times: replicas updated each other's messages", n, updates)
	}
	if calls := h.slack.Calls("chat.update"); calls > n+n/2 {
		t.Errorf("chat.update called %d times for %d messages (%d 429s)", calls, n, h.slack.Limited("chat.update"))
	}
}

// A burst of refused clicks meets Slack's chat.postEphemeral limit: the
// private answers wait out the Retry-After instead of being dropped.
func TestPrivateAnswersWaitOutSlacksLimit(t *testing.T) {
	t.Parallel()
	const n = 6
	h := newHarness(t, func(o *fakeslack.Options) {
		o.RateLimits = map[string]fakeslack.RateLimit{"chat.postEphemeral": {Limit: 120, Per: time.Minute, Burst: 3}}
	})
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})
	for range n {
		h.click(outsider, a, "approve")
	}
	h.waitFor("every refused click answered", func() bool { return len(h.ephemeralsTo(outsider)) == n })
	if h.slack.Limited("chat.postEphemeral") == 0 {
		t.Error("Slack never answered 429: the test did not exercise the limit")
	}
}
