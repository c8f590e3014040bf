package devstack_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// The people's side end to end, on the fake Slack, DynamoDB Local and the
// Step Functions double: what a person clicks, what the execution gets,
// what the requester is told and what the audit trail keeps.

// dm is what the app wrote to user in their direct message.
func (e *env) dm(user string) []string {
	var out []string
	for _, m := range e.stack.Slack.Messages(fakeslack.DMChannel(user)) {
		out = append(out, m.Text)
	}
	return out
}

// A short message: at most five buttons and one menu of five, a select of
// drafts above three, confirm dialogs on the confirmed buttons; the draft
// picked in the select is the one approved.
func TestShortMessageEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(func(m map[string]any) {
		m["drafts"] = []string{"d1", "d2", "d3", "d4", "d5"}
		m["revisionPresets"] = []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10"}
		m["allowEdit"] = true
		m["confirm"] = []string{"approve", "reject"}
	})
	msg := e.message(p)
	buttons := fakeslack.ButtonActions(msg.Blocks)
	if len(buttons) > 5 {
		t.Errorf("%d buttons, want at most 5", len(buttons))
	}
	for _, b := range buttons {
		if (b.ActionID == "approve_picked" || b.ActionID == "reject") != (b.Confirm != "") {
			t.Errorf("button %s has confirm %q", b.ActionID, b.Confirm)
		}
	}
	overflow := 0
	for _, o := range fakeslack.MenuOptions(msg.Blocks) {
		if o.Type == "overflow" {
			overflow++
		}
	}
	if overflow == 0 || overflow > 5 {
		t.Errorf("%d overflow options, want 1 to 5", overflow)
	}
	id, err := e.stack.Slack.Choose(alice, p.Response.Channel, p.Response.TS, "pick_draft", "3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
		t.Fatal(err)
	}
	e.click(alice, p, "Approve")
	out := decode(t, e.resumed(p).Output)
	if out["selectedDraft"] != "d4" || out["draftIndex"] != 3.0 || out["edited"] != false {
		t.Errorf("output = %v", out)
	}
	e.settled(p)
}

// A preset is one click: the change request goes at once, as the modal
// sends it.
func TestOneClickPresetEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(nil)
	e.click(alice, p, "Shorter")
	out := decode(t, e.resumed(p).Output)
	if out["action"] != "revise" || out["preset"] != "Shorter" || out["feedback"] != "Shorter" {
		t.Errorf("output = %v", out)
	}
	if len(e.stack.Slack.Views(alice)) != 0 {
		t.Error("a one-click preset opened a modal")
	}
	e.waitFor("the reply", func() bool {
		return slices.Contains(e.replies(p), "Changes requested by <@"+alice+">: Shorter")
	})
}

// Edit & approve: the draft chosen, prefilled, edited and approved; the
// execution gets the edited text and the original; the audit record keeps
// what was shown and what was approved.
func TestEditAndApproveEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	start := time.Now().Add(-time.Minute)
	p := e.request(func(m map[string]any) { m["allowEdit"] = true })
	e.click(alice, p, "Edit & approve")
	e.submit(alice, "edit_pick", map[string]map[string]any{"draft": {"draft": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "1"}}}})
	view := e.openedView(alice, "edit")
	if !strings.Contains(string(view.View), `"initial_value":"second draft"`) {
		t.Fatalf("the edit modal is not prefilled: %s", view.View)
	}
	ack := e.submit(alice, "edit", map[string]map[string]any{
		"edited":  {"edited": map[string]any{"type": "plain_text_input", "value": "second draft, fixed"}},
		"comment": {"comment": map[string]any{"type": "plain_text_input", "value": "one word"}},
	})
	if len(ack.Payload) != 0 && string(ack.Payload) != "null" {
		t.Fatalf("submission acked with %s", ack.Payload)
	}
	out := decode(t, e.resumed(p).Output)
	if out["selectedDraft"] != "second draft, fixed" || out["originalDraft"] != "second draft" || out["edited"] != true || out["comment"] != "one word" {
		t.Errorf("output = %v", out)
	}
	m := e.settled(p)
	if !strings.Contains(blocksText(m), "second draft, fixed") || !strings.Contains(blocksText(m), "edited") {
		t.Errorf("the message does not show the edited text: %s", blocksText(m))
	}
	var rec *workflow.DecisionRecord
	e.eventually("the decision in the audit trail", func() bool {
		_ = e.stack.Service.ExportAudit(e.ctx(), start, time.Now().Add(time.Minute), func(ev workflow.AuditEvent) error {
			if ev.ApprovalID == p.Response.ApprovalID && ev.Type == workflow.EventDecided {
				rec = ev.Record
			}
			return nil
		})
		return rec != nil
	})
	if rec.Title == "" || len(rec.Drafts) != 2 || rec.Drafts[1].Text != "second draft" || rec.Decided == nil || rec.Decided.Text != "second draft, fixed" || rec.Summary != "Two drafts for *Monday*." {
		t.Errorf("the audit record does not stand alone: %+v", rec)
	}
}

// The requester withdraws: the task fails with Withdrawn, the message
// closes, the thread says so, and they are told in a direct message.
func TestWithdrawEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	p := e.request(nil)
	e.click(alice, p, "Withdraw request")
	e.ephemeralTo(alice, "Only the person who asked for this approval can withdraw it.")
	e.click(bob, p, "Withdraw request")
	e.submit(bob, "withdraw", map[string]map[string]any{"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "Wrong week"}}})
	o := e.resumed(p)
	if o.State != stepfunctionstest.StateFailed || o.Error != "Withdrawn" || o.Cause != "Withdrawn by "+bob+": Wrong week" {
		t.Errorf("outcome = %+v", o)
	}
	if m := e.settled(p); !strings.Contains(blocksText(m), "Withdrawn") {
		t.Errorf("message = %s", blocksText(m))
	}
	e.waitFor("bob told", func() bool {
		d := e.dm(bob)
		return len(d) == 1 && strings.Contains(d[0], "Withdrawn by <@"+bob+">: Wrong week")
	})
}

// The requester withdraws from their App Home.
func TestWithdrawFromTheAppHomeEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(nil)
	id, err := e.stack.Slack.OpenHome(bob, "home")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
		t.Fatal(err)
	}
	e.waitFor("bob's Home with his open request", func() bool {
		v, ok := e.stack.Slack.Home(bob)
		return ok && strings.Contains(string(v.View), "Your open requests") && strings.Contains(string(v.View), p.Response.ApprovalID)
	})
	if _, err := e.stack.Slack.ClickHome(bob, "withdraw", p.Response.ApprovalID); err != nil {
		t.Fatal(err)
	}
	e.submit(bob, "withdraw", map[string]map[string]any{})
	if o := e.resumed(p); o.Error != "Withdrawn" || o.Cause != "Withdrawn by "+bob+" without a reason." {
		t.Errorf("outcome = %+v", o)
	}
}

// "Are you sure?": a confirmed action picked from a menu waits for the
// person's yes.
func TestConfirmedMenuActionEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(func(m map[string]any) { m["confirm"] = []string{"skip"} })
	e.click(alice, p, "Skip")
	view := e.openedView(alice, "sure")
	if !strings.Contains(string(view.View), "Skips this request now") {
		t.Errorf("the modal says %s", view.View)
	}
	if o := e.stack.SFN.Outcome(p.Token); o.State != stepfunctionstest.StateOpen {
		t.Fatalf("skipped before the person said yes: %+v", o)
	}
	e.submit(alice, "sure", nil)
	if out := decode(t, e.resumed(p).Output); out["action"] != "skip" {
		t.Errorf("output = %v", out)
	}
}

// The requester is told once, on two replicas, with a link; not with
// notifyRequester false; the decision, the expiry and the cancellation
// each tell.
func TestRequesterToldEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	decided := e.request(nil)
	quiet := e.request(func(m map[string]any) { m["notifyRequester"] = false })
	e.click(alice, decided, "Approve draft 2")
	e.click(alice, quiet, "Approve draft 1")
	e.resumed(decided)
	e.resumed(quiet)
	e.settled(decided)
	e.settled(quiet)
	e.waitFor("bob told once", func() bool { return len(e.dm(bob)) >= 1 })
	e.eventually("the notice recorded", func() bool {
		a, err := e.stack.Service.Get(e.ctx(), decided.Response.ApprovalID)
		return err == nil && !a.RequesterToldAt.IsZero()
	})
	d := e.dm(bob)
	if len(d) != 1 || !strings.Contains(d[0], "Approved draft 2 by <@"+alice+">") || !strings.Contains(d[0], "|Open the request>") {
		t.Errorf("bob's direct messages = %q", d)
	}
	if a, _ := e.stack.Service.Get(e.ctx(), quiet.Response.ApprovalID); !a.RequesterToldAt.IsZero() {
		t.Error("notifyRequester false told the requester")
	}
}

// A hand-over goes only to an active human member.
func TestHandOverOnlyToPeopleEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, func(o *devstack.Options) {
		o.Slack.Users = []fakeslack.User{{ID: "U0ROBOT", IsBot: true}, {ID: "U0LEFT", Deleted: true}, {ID: "U0GUEST", IsUltraRestricted: true}}
	})
	p := e.request(nil)
	e.click(alice, p, "Hand over")
	for user, want := range map[string]string{"U0ROBOT": "is an app", "U0LEFT": "has left the workspace", "U0GUEST": "is a guest"} {
		ack := e.submit(alice, "delegate", map[string]map[string]any{"delegate": {"delegate": map[string]any{"type": "users_select", "selected_user": user}}})
		if !strings.Contains(string(ack.Payload), want) {
			t.Errorf("%s: ack %s, want an error saying %q", user, ack.Payload, want)
		}
	}
	e.submit(alice, "delegate", map[string]map[string]any{"delegate": {"delegate": map[string]any{"type": "users_select", "selected_user": mallory}}})
	e.ephemeralTo(alice, "they decide it now")
}

// A Japanese request, and a bot and notifier in Japanese.
func TestJapaneseEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, func(o *devstack.Options) { o.Locale = "ja" })
	p := e.request(nil) // no locale: the notifier's
	m := e.message(p)
	if !strings.Contains(m.Text, "承認依頼") || !strings.Contains(blocksText(m), "案 1 を承認") {
		t.Fatalf("the request is not in Japanese: %s", blocksText(m))
	}
	e.click(mallory, p, "案 1 を承認")
	e.ephemeralTo(mallory, "あなたはこの依頼の承認者ではありません。")
	e.click(alice, p, "却下")
	e.submit(alice, "reject", map[string]map[string]any{"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "今週は見送り"}}})
	if o := e.resumed(p); o.Error != "Rejected" || o.Cause != "今週は見送り" {
		t.Errorf("outcome = %+v", o)
	}
	e.waitFor("the Japanese reply and notice", func() bool {
		d := e.dm(bob)
		return slices.Contains(e.replies(p), "<@"+alice+"> が却下しました: 今週は見送り") && len(d) == 1 && strings.Contains(d[0], "あなたの依頼")
	})
	english := e.request(func(m map[string]any) { m["locale"] = "en" })
	if m := e.message(english); !strings.Contains(m.Text, "Approval requested") {
		t.Errorf("a request's own locale does not win: %s", m.Text)
	}
}
