package slackbot

import (
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
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
	cfg.UpdateRate = Rate{} // no ceiling: Slack's answers alone
	cfg.SweepGrace = -1     // every sweep queues every stale message
	cfg.UpdateAttempts = 1  // only 429s are retried by the updater itself
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
	h.waitFor("every message updated", func() bool {
		for _, a := range list {
			if !h.outcomeShown(a, "Approved") {
				return false
			}
		}
		return true
	})
	updates := 0
	for _, a := range list {
		updates += h.message(a).Updates
	}
	if updates > n+n/10 {
		t.Errorf("%d messages were updated %d times: replicas updated each other's messages", n, updates)
	}
	if calls := h.slack.Calls("chat.update"); calls > 2*n {
		t.Errorf("chat.update called %d times for %d messages (%d 429s)", calls, n, h.slack.Limited("chat.update"))
	}
}
