package slackbot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

// home waits until user's App Home holds every text.
func (h *harness) home(user string, texts ...string) fakeslack.View {
	h.t.Helper()
	var v fakeslack.View
	h.waitFor(user+"'s App Home showing "+strings.Join(texts, ", "), func() bool {
		var ok bool
		if v, ok = h.slack.Home(user); !ok {
			return false
		}
		for _, text := range texts {
			if !strings.Contains(string(v.View), text) {
				return false
			}
		}
		return true
	})
	return v
}

// Opening the Home tab publishes what the viewer may decide, with the
// request's buttons, which decide from there; the Home then says what
// happened and lists the decision.
func TestAppHomeListsAndDecides(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Title: "Ship release 7", RevisionPresets: []string{"Shorter"}})
	other := h.request(workflow.Request{Title: "Not for you", Approvers: []string{approver2}})

	env, err := h.slack.OpenHome(approver, "home")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	v := h.home(approver, "Ship release 7", "Waiting for your decision")
	if strings.Contains(string(v.View), other.ID) {
		t.Error("the Home lists a request its viewer may not decide")
	}
	var buttons []string
	var blocks struct {
		Blocks []map[string]any `json:"blocks"`
	}
	_ = json.Unmarshal(v.View, &blocks)
	raw, _ := json.Marshal(blocks.Blocks)
	for _, b := range fakeslack.ButtonActions(raw) {
		if b.Value == a.ID {
			buttons = append(buttons, b.ActionID)
		}
	}
	for _, o := range fakeslack.MenuOptions(raw) {
		if o.BlockID == a.ID {
			buttons = append(buttons, o.ActionID+":"+o.Value)
		}
	}
	// The same actions as on the request message: a short row and the rest in one menu.
	if got := strings.Join(buttons, ","); got != "approve,reject,preset_0,more:revise,more:approve_comment,more:delegate" {
		t.Errorf("Home buttons = %s", got)
	}

	env, err = h.slack.ClickHome(approver, "approve", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the outcome", func() bool { return h.outcomeShown(a, "Approved") })
	v = h.home(approver, "Done: Approved by", "Recently decided by you", "✅ Approved")
	if strings.Contains(string(v.View), `"value":"`+a.ID+`"`) {
		t.Error("the Home still shows the decided request's buttons")
	}
	if len(h.ephemeralsTo(approver)) != 0 {
		t.Errorf("a click from the Home was answered in a channel: %q", h.ephemeralsTo(approver))
	}
	if n := h.slack.Calls("views.publish"); n != 2 {
		t.Errorf("views.publish calls = %d, want 2 (opened, then after the click)", n)
	}

	// A modal opened from the Home decides too, and answers there.
	b := h.request(workflow.Request{Title: "Rotate keys"})
	h.slack.OpenHome(approver, "home")
	h.home(approver, "Rotate keys")
	if _, err := h.slack.ClickHome(approver, "reject", b.ID); err != nil {
		t.Fatal(err)
	}
	if errs := h.submitModal(approver, textInput("reason", "not today")); errs != nil {
		t.Fatalf("errors = %v", errs)
	}
	h.waitFor("the rejection", func() bool { return h.outcomeShown(b, "Rejected") })
	h.home(approver, "Done: Rejected by", "❌ Rejected")
	if task := h.task(b); task.Error != "Rejected" || task.Cause != "not today" {
		t.Errorf("failure = %q %q", task.Error, task.Cause)
	}
}

// A button on a Home view that is not the clicker's own (a view published
// for somebody else, or under another callback) decides nothing.
func TestAppHomeClickOnAnotherHomeRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})
	forged := blocks.HomeView(blocks.Home{User: outsider, Pending: []workflow.Approval{h.get(a)}, Now: time.Now()})
	api := h.api(nil)
	if _, err := api.PublishViewContext(context.Background(), slack.PublishViewContextRequest{UserID: approver, View: forged}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.ClickHome(approver, "approve", a.ID); err != nil {
		t.Fatal(err)
	}
	h.home(approver, "These buttons decide only")
	if !h.task(a).Open || h.get(a).Status != workflow.StatusPending {
		t.Fatal("a click on a Home published for somebody else decided")
	}
}

// Opening the Messages tab publishes nothing; a person with nothing to
// decide and no history is told so.
func TestAppHomeMessagesTabIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	env, err := h.slack.OpenHome(approver, "messages")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.OpenHome(outsider, "home"); err != nil {
		t.Fatal(err)
	}
	h.home(outsider, "Nothing waits for you.", "Nothing yet.")
	if _, ok := h.slack.Home(approver); ok {
		t.Error("opening the Messages tab published a Home")
	}
}
