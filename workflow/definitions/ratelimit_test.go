package definitions_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// slack429 is what chat.Poster returns for Slack's 429 with a
// Retry-After too long for the notifier to wait out itself.
type slack429 time.Duration

func (e slack429) Error() string             { return "slack chat.postMessage: ratelimited (retry after 30s)" }
func (e slack429) RetryAfter() time.Duration { return time.Duration(e) }

// The shipped Retry for SlackPostFailed (6 attempts, backoff 2, full
// jitter, at most a minute apart) gets a request posted through five 429s
// in a row, once.
func TestSlackRateLimitIsRetriedByTheTask(t *testing.T) {
	t.Parallel()
	const fails = 5
	f := newEscalateFixture(t)
	for range fails {
		f.poster.fails = append(f.poster.fails, slack429(30*time.Second))
	}
	arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
	failed := func() int { return strings.Count(f.historyText(arn), `"error":"SlackPostFailed"`) }
	deadline := time.After(waitTimeout)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for i := 1; i <= fails; i++ {
		// Attempt i failed and its Retry is waiting, on a timer beside the
		// execution's own (or the next attempt already runs).
		for failed() < i || f.clock.Pending() < 2 {
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("attempt %d did not fail as Slack refused\nhistory:\n%s", i, f.historyText(arn))
			}
		}
		f.clock.Advance(time.Minute) // MaxDelaySeconds: no Retry waits longer
	}
	a := f.nextApproval()
	f.noMorePosts()
	if got := failed(); got != fails {
		t.Errorf("%d SlackPostFailed in the history, want %d\n%s", got, fails, f.historyText(arn))
	}
	if !strings.Contains(f.historyText(arn), "ratelimited, Slack asks to retry after 30s") {
		t.Errorf("the history does not name ratelimited and the Retry-After:\n%s", f.historyText(arn))
	}
	if a.Channel != channel {
		t.Errorf("posted %+v", a)
	}
}
