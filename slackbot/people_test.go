package slackbot

import (
	"context"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

// choose picks an option of a menu on a's message.
func (h *harness) choose(user string, a workflow.Approval, menu, value string) {
	h.t.Helper()
	if _, err := h.slack.Choose(user, a.Channel, a.MessageTS, menu, value); err != nil {
		h.t.Fatal(err)
	}
}

// openView waits for user's open modal with the callback ID.
func (h *harness) openView(user, callbackID string) fakeslack.View {
	h.t.Helper()
	var v fakeslack.View
	h.waitFor("a "+callbackID+" modal for "+user, func() bool {
		var ok bool
		v, ok = h.slack.OpenView(user)
		return ok && v.CallbackID == callbackID
	})
	return v
}

// A preset's button sends the change request at once, as the modal would.
func TestOneClickPreset(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{RevisionPresets: []string{"For non-engineers", "Shorter"}})
	h.click(approver, a, "preset_1")
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Changes requested") })
	out := output(t, h.task(a))
	if out["action"] != "revise" || out["preset"] != "Shorter" || out["feedback"] != "Shorter" {
		t.Errorf("output = %v, want a change request with the preset, as the modal sends it", out)
	}
	if len(h.slack.Views(approver)) != 0 {
		t.Error("a one-click preset opened a modal")
	}
}

// Presets past the button budget are in the menu; with confirm, an action
// picked from a menu asks "are you sure?" in a modal, and buttons carry
// Slack's dialog naming what happens.
func TestMenuPicksAndConfirm(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{
		Drafts: []string{"one", "two", "three"}, RevisionPresets: []string{"p1", "p2", "p3"}, AllowSkip: true,
		Confirm: []string{"approve", "revise", "skip"},
	})
	m := h.message(a)
	confirms := map[string]string{}
	for _, b := range fakeslack.ButtonActions(m.Blocks) {
		confirms[b.ActionID] = b.Confirm
	}
	if !strings.Contains(confirms["approve_draft_1"], "Publishes draft 2 now") || confirms["reject"] != "" || !strings.Contains(confirms["preset_0"], "Sends “p1” back now") {
		t.Errorf("confirm dialogs = %q", confirms)
	}

	h.choose(approver, a, "more", "skip")
	v := h.openView(approver, "sure")
	if !strings.Contains(string(v.View), "Skips this request now") {
		t.Errorf("the are-you-sure modal says %s", v.View)
	}
	if h.get(a).Status != workflow.StatusPending {
		t.Fatal("a confirmed action was taken before it was confirmed")
	}
	if errs := h.submitModal(approver, nil); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Skipped") })
	if out := output(t, h.task(a)); out["action"] != "skip" {
		t.Errorf("output = %v", out)
	}

	b := h.request(workflow.Request{Drafts: []string{"one", "two", "three"}, RevisionPresets: []string{"p1", "p2", "p3"}})
	// Presets, Other changes…, Approve with comment, Hand over and
	// Withdraw do not fit one overflow menu: the presets have a menu of
	// their own.
	h.choose(approver, b, "changes", "preset_2")
	h.waitFor("the outcome", func() bool { return h.outcomeShown(b, "Changes requested") })
	if out := output(t, h.task(b)); out["preset"] != "p3" {
		t.Errorf("a preset from the menu without confirm: output = %v", out)
	}
}

// More than three drafts: a select and one Approve button, which
// approves the draft picked (and asks which when none is).
func TestApproveThePickedDraft(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	drafts := []string{"d1", "d2", "d3", "d4", "d5"}
	a := h.request(workflow.Request{Drafts: drafts})
	h.click(approver, a, "approve_picked")
	h.openView(approver, "approve")
	if h.get(a).Status != workflow.StatusPending {
		t.Fatal("Approve without a pick decided")
	}
	h.choose(approver, a, "pick_draft", "3")
	h.click(approver, a, "approve_picked")
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved draft 4") })
	if out := output(t, h.task(a)); out["selectedDraft"] != "d4" {
		t.Errorf("output = %v", out)
	}
}

// Edit & approve: which draft, the draft prefilled, the edited text
// approved; the output has it, the original and edited true.
func TestEditAndApprove(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Drafts: []string{"First draft", "Second draft with a tpyo"}, AllowEdit: true})
	h.choose(approver, a, "more", "edit")
	h.openView(approver, "edit_pick")
	errs := h.submitModal(approver, map[string]map[string]any{"draft": {"draft": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "1"}}}})
	if errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	v := h.openView(approver, "edit")
	if !strings.Contains(string(v.View), `"initial_value":"Second draft with a tpyo"`) {
		t.Fatalf("the edit modal is not prefilled with draft 2: %s", v.View)
	}
	if errs := h.submitModal(approver, textInput("edited", "  ")); errs["edited"] == "" {
		t.Errorf("an empty edit: errors = %v", errs)
	}
	values := textInput("edited", "Second draft with a typo fixed")
	values["comment"] = textInput("comment", "fixed the typo")["comment"]
	if errs := h.submitModal(approver, values); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved draft 2, edited,") })
	out := output(t, h.task(a))
	if out["selectedDraft"] != "Second draft with a typo fixed" || out["originalDraft"] != "Second draft with a tpyo" || out["edited"] != true || out["comment"] != "fixed the typo" {
		t.Errorf("output = %v", out)
	}
	if !strings.Contains(string(h.message(a).Blocks), "Second draft with a typo fixed") {
		t.Error("the message does not show the text as approved")
	}
}

// The requester withdraws their request from the message's menu: the
// execution fails with Withdrawn, the message closes; nobody else may.
func TestWithdrawFromTheMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})
	h.choose(approver, a, "more", "withdraw")
	h.told(approver, "Only the person who asked for this approval can withdraw it.")
	h.choose(requester, a, "more", "withdraw")
	h.openView(requester, "withdraw")
	if errs := h.submitModal(requester, textInput("reason", "Wrong week")); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Withdrawn") })
	if task := h.task(a); task.Error != "Withdrawn" || task.Cause != "Withdrawn by "+requester+": Wrong week" {
		t.Errorf("task = %+v", task)
	}
	h.told(requester, "You withdrew")
}

// The requester's App Home lists their open requests with Withdraw.
func TestWithdrawFromTheAppHome(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})
	if _, err := h.slack.OpenHome(requester, "home"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the requester's Home", func() bool {
		v, ok := h.slack.Home(requester)
		return ok && strings.Contains(string(v.View), "Your open requests") && strings.Contains(string(v.View), a.ID)
	})
	if _, err := h.slack.ClickHome(requester, "withdraw", a.ID); err != nil {
		t.Fatal(err)
	}
	h.openView(requester, "withdraw")
	if errs := h.submitModal(requester, nil); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Withdrawn") })
	if task := h.task(a); task.Cause != "Withdrawn by "+requester+" without a reason." {
		t.Errorf("task = %+v", task)
	}
}

// The requester gets one direct message with the outcome and a link,
// however many replicas run; notifyRequester false sends none.
func TestRequesterIsToldOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	h.startBot(testConfig(), nil)
	off := false
	a := h.request(workflow.Request{})
	quiet := h.request(workflow.Request{NotifyRequester: &off})
	h.click(approver, a, "reject")
	if errs := h.submitModal(approver, textInput("reason", "Not now")); errs != nil {
		t.Fatal(errs)
	}
	h.click(approver, quiet, "approve")
	dm := fakeslack.DMChannel(requester)
	h.waitFor("the requester's notice", func() bool { return len(h.slack.Messages(dm)) == 1 })
	h.waitFor("both outcomes", func() bool { return h.outcomeShown(a, "Rejected") && h.outcomeShown(quiet, "Approved") })
	h.waitFor("the notice recorded", func() bool { return !h.get(a).RequesterToldAt.IsZero() })
	msgs := h.slack.Messages(dm)
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "Your request *"+a.Title+"*: Rejected by <@"+approver+">: Not now") || !strings.Contains(msgs[0].Text, "|Open the request>") {
		t.Errorf("direct messages to the requester = %+v", msgs)
	}
	if !h.get(quiet).RequesterToldAt.IsZero() {
		t.Error("notifyRequester false: the requester was told")
	}
}

// A hand-over goes only to an active person: no app, no deactivated
// account, no guest, checked with Slack when the modal is submitted.
func TestHandOverOnlyToActivePeople(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.slack.SetUser(fakeslack.User{ID: "U0ROBOT", IsBot: true})
	h.slack.SetUser(fakeslack.User{ID: "U0GONE", Deleted: true})
	h.slack.SetUser(fakeslack.User{ID: "U0GUEST", IsRestricted: true})
	h.slack.SetUser(fakeslack.User{ID: "U0VISITOR", IsUltraRestricted: true})
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})
	pick := func(user string) map[string]map[string]any {
		return map[string]map[string]any{"delegate": {"delegate": map[string]any{"type": "users_select", "selected_user": user}}}
	}
	h.choose(approver, a, "more", "delegate")
	for user, want := range map[string]string{
		"U0ROBOT":   "is an app, not a person",
		"U0GONE":    "has left the workspace",
		"U0GUEST":   "is a guest of this workspace",
		"U0VISITOR": "is a guest of this workspace",
	} {
		if errs := h.submitModal(approver, pick(user)); !strings.Contains(errs["delegate"], want) {
			t.Errorf("%s: errors = %v, want %q", user, errs, want)
		}
	}
	if got := h.get(a); len(got.Delegations) != 0 {
		t.Fatalf("refused hand-overs were recorded: %+v", got.Delegations)
	}
	if errs := h.submitModal(approver, pick(outsider)); errs != nil {
		t.Fatalf("a person: errors = %v", errs)
	}
	h.told(approver, "they decide it now")
}

// A Japanese request speaks Japanese: the message, the answers, the
// modals and the outcome.
func TestJapaneseRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Locale: "ja", Drafts: []string{"案その一", "案その二"}, RevisionPresets: []string{"もっと短く"}})
	m := h.message(a)
	if !strings.Contains(m.Text, "承認依頼") || !strings.Contains(string(m.Blocks), "案 2 を承認") || !strings.Contains(string(m.Blocks), "却下") {
		t.Errorf("the request is not in Japanese: %s", m.Blocks)
	}
	h.click(outsider, a, "approve_draft_0")
	h.told(outsider, "あなたはこの依頼の承認者ではありません。")
	h.click(approver, a, "reject")
	v := h.openView(approver, "reject")
	if !strings.Contains(string(v.View), "依頼を却下") {
		t.Errorf("the reject modal is not in Japanese: %s", v.View)
	}
	if errs := h.submitModal(approver, textInput("reason", "今週は見送り")); errs != nil {
		t.Fatal(errs)
	}
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "却下") })
	h.waitFor("the reply", func() bool {
		r := h.slack.Replies(a.Channel, a.MessageTS)
		return len(r) == 1 && strings.Contains(r[0].Text, "が却下しました: 今週は見送り")
	})
	if task := h.task(a); task.Cause != "今週は見送り" {
		t.Errorf("task = %+v", task)
	}
}

// The bot's own texts follow Config.Locale: /approvals answers in it.
func TestBotLocale(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cfg := testConfig()
	cfg.Locale = "ja"
	h.startBot(cfg, nil)
	env, err := h.slack.Slash(approver, channel, "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitHandled(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the Japanese answer", func() bool {
		for _, p := range h.slack.ResponsePosts() {
			if strings.Contains(string(p.Body), "判断を待っている依頼はありません") {
				return true
			}
		}
		return false
	})
}

// A hand-over whose replica died before telling anybody (recorded, its
// note never posted) is told by a surviving replica's sweep once its
// grace has passed: the note in the thread, the message, the delegate's
// App Home. One the bot told itself is never told again.
func TestHandOverToldAfterItsReplicaDied(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	notes := func(a workflow.Approval, delegate string) int {
		n := 0
		for _, r := range h.slack.Replies(a.Channel, a.MessageTS) {
			if strings.Contains(r.Text, "<@"+delegate+">") {
				n++
			}
		}
		return n
	}
	told := h.request(workflow.Request{})
	h.choose(approver, told, "more", "delegate")
	if errs := h.submitModal(approver, map[string]map[string]any{"delegate": {"delegate": map[string]any{"type": "users_select", "selected_user": outsider}}}); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.waitFor("the bot's own note", func() bool { return notes(told, outsider) == 1 })
	h.waitFor("its note recorded posted", func() bool { return !h.get(told).Delegations[0].Told.IsZero() })

	lost := h.request(workflow.Request{})
	if _, err := h.svc.Delegate(t.Context(), lost.ID, approver, member, workflow.MessageRef{Channel: lost.Channel, TS: lost.MessageTS}); err != nil {
		t.Fatal(err) // recorded by a replica that died right after
	}
	h.clock.Add(int64(workflow.HandOverNoticeGrace))
	h.waitFor("the note of the lost hand-over", func() bool { return notes(lost, member) == 1 })
	h.waitFor("the message shows it", func() bool {
		b := string(h.message(lost).Blocks)
		return strings.Contains(b, "handed this request to") && strings.Contains(b, member)
	})
	h.waitFor("the delegate's App Home lists it", func() bool {
		v, ok := h.slack.Home(member)
		return ok && strings.Contains(string(v.View), lost.ID)
	})
	if n := notes(told, outsider); n != 1 {
		t.Errorf("the hand-over the bot told was told %d times", n)
	}
	if n := notes(lost, member); n != 1 {
		t.Errorf("the lost hand-over was told %d times", n)
	}
}
