package slackbot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

func quorumOf(n int64) *int64 { return &n }

// submitModal submits user's open modal and returns the ack's errors by block.
func (h *harness) submitModal(user string, values map[string]map[string]any) map[string]string {
	h.t.Helper()
	var v fakeslack.View
	h.waitFor("a modal for "+user, func() bool {
		var ok bool
		v, ok = h.slack.OpenView(user)
		return ok
	})
	env, err := h.slack.Submit(user, v.ID, values)
	if err != nil {
		h.t.Fatal(err)
	}
	ack, err := h.slack.WaitAck(context.Background(), env)
	if err != nil {
		h.t.Fatal(err)
	}
	var got struct {
		Errors map[string]string `json:"errors"`
	}
	_ = json.Unmarshal(ack.Payload, &got)
	return got.Errors
}

// told waits for a private answer to user containing text.
func (h *harness) told(user, text string) {
	h.t.Helper()
	h.waitFor("a private answer to "+user+": "+text, func() bool {
		for _, e := range h.ephemeralsTo(user) {
			if strings.Contains(e, text) {
				return true
			}
		}
		return false
	})
}

func textInput(block, value string) map[string]map[string]any {
	return map[string]map[string]any{block: {block: map[string]any{"type": "plain_text_input", "value": value}}}
}

// An approval below the quorum is a vote: the message shows the progress
// and keeps its buttons, the person is told, nothing resumes; the approval
// that reaches the quorum resumes once, with both in "approvals".
func TestQuorumShowsProgressThenResumesOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Quorum: quorumOf(2)})

	h.click(approver, a, "approve")
	h.told(approver, "is counted (1 of 2 approvals so far)")
	h.waitFor("the progress on the message", func() bool {
		m := h.message(a)
		return m.Updates > 0 && strings.Contains(string(m.Blocks), "1 of 2 approvals") && len(fakeslack.ButtonActions(m.Blocks)) > 0
	})
	if !h.task(a).Open {
		t.Fatal("a vote below the quorum resumed the execution")
	}
	if n := len(h.logs.FilterMessage("decided").All()); n != 0 {
		t.Errorf("%d decided log lines for a vote, want 0", n)
	}
	if votes := h.logs.FilterMessage("vote counted").All(); len(votes) != 1 || votes[0].ContextMap()["progress"] != "1 of 2 approvals" {
		t.Errorf("vote log lines = %v", votes)
	}

	h.click(approver, a, "approve") // the same approval again
	h.waitFor("a second answer", func() bool { return len(h.ephemeralsTo(approver)) == 2 })
	h.click(member, a, "approve")
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved") })
	out := output(t, h.task(a))
	approvals, _ := out["approvals"].([]any)
	if len(approvals) != 2 || out["decidedBy"] != member || h.task(a).Results != 1 {
		t.Fatalf("output = %v (results %d), want two approvals, decided by %s, one result", out, h.task(a).Results, member)
	}
	for i, who := range []string{approver, member} {
		if got := approvals[i].(map[string]any)["userId"]; got != who {
			t.Errorf("approvals[%d] = %v, want %s", i, got, who)
		}
	}
	h.waitFor("the reply", func() bool { return len(h.slack.Replies(a.Channel, a.MessageTS)) == 1 })
	if got := h.slack.Replies(a.Channel, a.MessageTS)[0].Text; got != "Approved by <@"+approver+">, <@"+member+">." {
		t.Errorf("reply = %q", got)
	}
}

// Approvals of different drafts never add up, and the message says so.
func TestQuorumDraftsDoNotAddUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Quorum: quorumOf(2), Drafts: []string{"one", "two"}})

	h.click(approver, a, "approve_draft_0")
	h.told(approver, "Your approval of draft 1")
	h.click(approver2, a, "approve_draft_1")
	h.told(approver2, "Your approval of draft 2")
	h.waitFor("both drafts' progress", func() bool {
		b := string(h.message(a).Blocks)
		return strings.Contains(b, "Draft 1: *1 of 2 approvals*") && strings.Contains(b, "Draft 2: *1 of 2 approvals*") &&
			strings.Contains(b, "approvals of different drafts do not add up")
	})
	h.click(approver, a, "approve_draft_1")
	h.told(approver, "You already approved draft 1; approvals of different drafts do not add up")
	if !h.task(a).Open {
		t.Fatal("approvals of two drafts resumed the execution")
	}
	h.click(member, a, "approve_draft_0")
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved draft 1") })
	if out := output(t, h.task(a)); out["draftIndex"] != 0.0 || len(out["approvals"].([]any)) != 2 {
		t.Errorf("output = %v", out)
	}
}

// "Approve with comment" opens a modal; the comment reaches the output and
// the message.
func TestApproveWithComment(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Drafts: []string{"one", "two"}})

	h.click(approver, a, "approve_comment")
	if errs := h.submitModal(approver, textInput("comment", "Numbers check out")); errs["draft"] == "" {
		t.Fatalf("a submission without a draft was accepted: %v", errs)
	}
	values := textInput("comment", "Numbers check out")
	values["draft"] = map[string]any{"draft": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "1"}}}
	if errs := h.submitModal(approver, values); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Numbers check out") })
	out := output(t, h.task(a))
	if out["comment"] != "Numbers check out" || out["draftIndex"] != 1.0 {
		t.Errorf("output = %v", out)
	}
	if c := out["approvals"].([]any)[0].(map[string]any)["comment"]; c != "Numbers check out" {
		t.Errorf("approvals[0].comment = %v", c)
	}
}

// With requireComment, Approve opens the comment modal, which refuses an
// empty comment, and Reject's reason is required.
func TestRequiredComments(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{RequireComment: []string{"approve", "reject"}})
	if got := fakeslack.ButtonActions(h.message(a).Blocks)[0]; got.ActionID != "approve_comment" || got.Text != "Approve" {
		t.Fatalf("first button = %+v, want Approve opening the comment modal", got)
	}

	h.click(approver, a, "reject")
	if errs := h.submitModal(approver, textInput("reason", "  ")); errs["reason"] != "This request needs a reason to reject it." {
		t.Errorf("reject errors = %v", errs)
	}
	if v, _ := h.slack.OpenView(approver); !v.Closed {
		h.slack.CloseView(approver, v.ID)
	}
	h.click(approver, a, "approve_comment")
	if errs := h.submitModal(approver, nil); errs["comment"] != "This request needs a comment to approve it." {
		t.Errorf("approve errors = %v", errs)
	}
	if !h.task(a).Open {
		t.Fatal("a refused submission resumed the execution")
	}
	if errs := h.submitModal(approver, textInput("comment", "ok by me")); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved") })
	if out := output(t, h.task(a)); out["comment"] != "ok by me" {
		t.Errorf("output = %v", out)
	}
}

// An approver hands the request to somebody else with the user picker: the
// delegate decides, the delegator no longer may, the thread and the
// message say so, and the output lists the hand-over.
func TestHandOver(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Approvers: []string{approver, approver2}})
	pick := func(user string) map[string]map[string]any {
		return map[string]map[string]any{"delegate": {"delegate": map[string]any{"type": "users_select", "selected_user": user}}}
	}

	h.click(approver, a, "delegate")
	if errs := h.submitModal(approver, pick(approver)); errs["delegate"] != "You cannot hand a request to yourself." {
		t.Errorf("errors = %v", errs)
	}
	if errs := h.submitModal(approver, pick(requester)); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.told(approver, "<@"+requester+"> requested this approval, so they cannot decide it.")

	h.click(approver, a, "delegate")
	if errs := h.submitModal(approver, pick(outsider)); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.told(approver, "; they decide it now.")
	want := "↪️ <@" + approver + "> handed this request to <@" + outsider + ">, who may decide it now."
	h.waitFor("the note and the message", func() bool {
		replies := h.slack.Replies(a.Channel, a.MessageTS)
		return len(replies) == 1 && replies[0].Text == want && strings.Contains(string(h.message(a).Blocks), "handed this request to")
	})
	h.waitFor("the delegate's App Home", func() bool {
		v, ok := h.slack.Home(outsider)
		return ok && strings.Contains(string(v.View), a.ID)
	})

	h.click(approver, a, "approve")
	h.told(approver, "You handed this request to <@"+outsider+">, so they decide it now.")
	h.click(outsider, a, "approve")
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved") })
	out := output(t, h.task(a))
	delegations, _ := out["delegations"].([]any)
	if out["decidedBy"] != outsider || len(delegations) != 1 || delegations[0].(map[string]any)["to"] != outsider {
		t.Errorf("output = %v", out)
	}
}

// A request for a user ID is a direct message from the app, decided there.
func TestDirectMessageRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Channel: approver})
	if a.Channel != fakeslack.DMChannel(approver) {
		t.Fatalf("recorded channel %q, want the direct message %q", a.Channel, fakeslack.DMChannel(approver))
	}
	h.click(approver, a, "approve_comment")
	h.waitFor("the modal", func() bool { _, ok := h.slack.OpenView(approver); return ok })
	h.slack.CloseView(approver, h.slack.Views(approver)[0].ID)
	h.click(approver, a, "approve")
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved") })
	h.waitFor("the reply in the direct message", func() bool { return len(h.slack.Replies(a.Channel, a.MessageTS)) == 1 })
}

// /approvals history lists the caller's decisions privately.
func TestHistoryCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Title: "Deploy <v2>"})
	h.click(approver, a, "approve")
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved") })

	for _, text := range []string{"history", "history 3", "history 0"} {
		before := len(h.slack.ResponsePosts())
		if _, err := h.slack.Slash(approver, channel, "/approvals", text); err != nil {
			t.Fatal(err)
		}
		h.waitFor("the answer", func() bool { return len(h.slack.ResponsePosts()) > before })
		body := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(h.slack.ResponsePosts()[before].Body))
		want := "✅ Approved · *<"
		if text == "history 0" {
			want = "history [N]"
		}
		if !strings.Contains(body, want) || !strings.Contains(body, "Deploy &lt;v2&gt;") && text != "history 0" {
			t.Errorf("%q answered %s", text, body)
		}
	}
}

// The deadline lifecycle on two replicas: the reminder and the escalation
// are each posted once in the request's thread, mentioning who may still
// decide and escalateTo, and shown on the message; onDeadline then decides
// with the outcome worded as the deadline's.
func TestDeadlineLifecycleOnTwoReplicas(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	second := workflow.NewService(h.store, h.resumer, h.dir)
	second.Audit, second.Now = h.svc.Audit, h.now
	h.startBot(testConfig(), nil)
	h.startBot(testConfig(), second)
	a := h.request(workflow.Request{
		Approvers: []string{approver, approver2}, TimeoutSeconds: 3600,
		Reminders: []string{"50%"}, EscalateTo: []string{outsider}, OnDeadline: "reject",
	})
	notes := func(prefix string) int {
		n := 0
		for _, r := range h.slack.Replies(a.Channel, a.MessageTS) {
			if strings.HasPrefix(r.Text, prefix) {
				n++
			}
		}
		return n
	}

	h.clock.Add(int64(31 * time.Minute))
	h.waitFor("the reminder", func() bool { return notes("🔔 Reminder: <@"+approver+">, <@"+approver2+">, this request") == 1 })
	h.waitFor("the reminder on the message", func() bool {
		m := h.message(a)
		return strings.Contains(string(m.Blocks), "Reminded who may still decide") && len(fakeslack.ButtonActions(m.Blocks)) > 0
	})

	h.clock.Add(int64(15 * time.Minute))
	h.waitFor("the escalation", func() bool { return notes("⏫ Escalated: <@"+outsider+">, nobody has decided") == 1 })
	h.waitFor("the escalation on the message", func() bool { return strings.Contains(string(h.message(a).Blocks), "may decide too") })

	h.clock.Add(int64(13 * time.Minute))
	h.waitFor("the deadline's outcome", func() bool { return h.outcomeShown(a, "Rejected at the deadline") })
	h.waitFor("the reply", func() bool { return notes("Rejected at its deadline: nobody decided in time.") == 1 })
	task := h.task(a)
	if task.Error != "Rejected" || !strings.Contains(task.Cause, "before its deadline") || task.Results != 1 {
		t.Errorf("task = %+v", task)
	}
	if r, e := notes("🔔"), notes("⏫"); r != 1 || e != 1 {
		t.Errorf("%d reminders and %d escalations posted, want one each", r, e)
	}
}
