package slackbot

import (
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// TestGroupMembershipIsNotTrustedPastTheGrace: while Slack cannot list a
// group, its cached members decide for DefaultStaleGrace past the cache's
// minute, then are refused with their own explanation and nothing changes.
func TestGroupMembershipIsNotTrustedPastTheGrace(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	req := workflow.Request{Approvers: []string{group}, RevisionPresets: []string{"Shorter"}}
	first, second, third := h.request(req), h.request(req), h.request(req)

	h.click(member, first, "approve")
	h.waitFor("decided by a member", func() bool { return h.outcomeShown(first, "Approved") })
	h.slack.FailMethod("usergroups.users.list", -1, 503)

	h.clock.Add(int64(time.Minute + DefaultStaleGrace - time.Second))
	h.click(member, second, "approve")
	h.waitFor("decided within the grace", func() bool { return h.outcomeShown(second, "Approved") })

	h.clock.Add(int64(2 * time.Second))
	h.click(member, third, "approve")
	h.click(member, third, "revise")
	h.waitFor("two answers", func() bool { return len(h.ephemeralsTo(member)) == 2 })
	for _, got := range h.ephemeralsTo(member) {
		if got != "Cannot check your group membership right now; please try again shortly." {
			t.Errorf("member was told %q", got)
		}
	}
	if !h.task(third).Open || h.get(third).Status != workflow.StatusPending || h.message(third).Updates != 0 || len(h.slack.Views(member)) != 0 {
		t.Error("a click Slack could not confirm changed something")
	}

	h.slack.Heal("usergroups.users.list")
	h.click(member, third, "approve")
	h.waitFor("decided once Slack answers", func() bool { return h.outcomeShown(third, "Approved") })
}
