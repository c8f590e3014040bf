package slackbot

import (
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
)

// The sweeper lists approvals without their body (workflow.Approval.Listed);
// the message it fixes must still show the whole request.
func TestSweeperRendersTheWholeMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{
		Summary: "The summary the sweeper must keep.",
		Fields:  workflow.Fields{{Label: "Theme", Value: "kept field"}},
		Drafts:  []string{"first kept draft", "second kept draft"},
	})
	h.slack.FailMethod("chat.update", -1, 503)
	h.click(approver, a, "approve_draft_1")
	h.waitFor("resumed and the decision's updates given up", func() bool {
		return !h.task(a).Open && h.slack.Calls("chat.update") >= testConfig().UpdateAttempts
	})
	h.slack.Heal("chat.update")
	h.waitFor("message fixed by the sweeper", func() bool { return h.outcomeShown(a, "Approved draft 2") })
	blocks := string(h.message(a).Blocks)
	for _, want := range []string{"The summary the sweeper must keep.", "kept field", "first kept draft", "second kept draft"} {
		if !strings.Contains(blocks, want) {
			t.Errorf("the swept message lost %q: %s", want, blocks)
		}
	}
}
