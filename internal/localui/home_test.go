package localui_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

// Opening the Home tab sends app_home_opened as the person; the Home the app publishes is shown
// to them alone, live, and its buttons click from the Home (a view container).
func TestHome(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	open := func(as, tab string) (int, map[string]any) {
		return u.post(t, "/home", url.Values{"as": {as}, "tab": {tab}})
	}
	if code, body := open("U0ALICE", "home"); code != http.StatusBadGateway || !strings.Contains(body["error"].(string), "not connected") {
		t.Errorf("without the app: %d %v", code, body)
	}
	if page := u.page(t, "U0ALICE", "home"); !strings.Contains(page, "has not published a Home tab for you yet") || strings.Contains(page, `id="composer"`) {
		t.Error("before the app publishes, the Home tab does not say so, or has a composer")
	}

	a := startApp(t, u, func(e socketmode.Event) any {
		ev, ok := e.Data.(slackevents.EventsAPIEvent)
		if !ok {
			return nil
		}
		if opened, ok := ev.InnerEvent.Data.(*slackevents.AppHomeOpenedEvent); ok && opened.Tab == "home" {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := u.api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: opened.User, View: slack.HomeTabViewRequest{
				Type: slack.VTHomeTab, CallbackID: "home", PrivateMetadata: opened.User,
				Blocks: slack.Blocks{BlockSet: []slack.Block{
					slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, "*Waiting for <@"+opened.User+">*", false, false), nil, nil),
					slack.NewActionBlock("ap_1", slack.NewButtonBlockElement("approve", "ap_1", plain("Approve")).WithStyle(slack.StylePrimary)),
				}},
			}}); err != nil {
				t.Errorf("views.publish: %v", err)
			}
		}
		return nil
	})
	s := openEvents(t, u, "U0ALICE", "home")
	if html, _ := s.next(t, "home"); !strings.Contains(html, "has not published") {
		t.Errorf("the Home at the start: %s", html)
	}
	if code, body := open("U0ALICE", "home"); code != http.StatusOK {
		t.Fatalf("open the Home: %d %v", code, body)
	}
	opened := a.requests()[0].Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.AppHomeOpenedEvent)
	if opened.User != "U0ALICE" || opened.Tab != "home" || opened.Channel != fakeslack.DMChannel("U0ALICE") {
		t.Errorf("the app got app_home_opened %+v", opened)
	}
	if html, _ := s.next(t, "home"); !strings.Contains(html, `id="home-view"`) || !strings.Contains(html, `data-action-id="approve"`) {
		t.Errorf("the published Home did not arrive live: %s", html)
	}
	if page := u.page(t, "U0ALICE", "home"); !strings.Contains(page, `Waiting for <span class="mention me"`) || !strings.Contains(page, `id="tab-home"`) {
		t.Errorf("alice's page does not show her Home with the app's tabs:\n%s", page)
	}
	if page := u.page(t, "U0BOB", "home"); strings.Contains(page, "Waiting for") {
		t.Error("bob sees alice's Home")
	}

	click := func(as, actionID string) (int, map[string]any) {
		return u.post(t, "/click", url.Values{"as": {as}, "container": {"home"}, "action_id": {actionID}, "value": {"ap_1"}})
	}
	if code, body := click("U0ALICE", "approve"); code != http.StatusOK {
		t.Fatalf("click on the Home: %d %v", code, body)
	}
	home, _ := u.slack.Home("U0ALICE")
	got := a.requests()[1].Data.(slack.InteractionCallback)
	if got.Type != slack.InteractionTypeBlockActions || got.User.ID != "U0ALICE" || got.Container.Type != "view" ||
		got.Container.ViewID != home.ID || got.View.Type != slack.VTHomeTab || got.View.PrivateMetadata != "U0ALICE" ||
		got.ActionCallback.BlockActions[0].ActionID != "approve" || got.ActionCallback.BlockActions[0].Value != "ap_1" {
		t.Errorf("the app got %s from %s in %+v: %+v", got.Type, got.User.ID, got.Container, got.ActionCallback.BlockActions)
	}
	if code, body := click("U0BOB", "approve"); code != http.StatusConflict {
		t.Errorf("bob clicked on a Home he does not have: %d %v", code, body)
	}
	if code, body := click("U0ALICE", "nope"); code != http.StatusBadRequest || !strings.Contains(body["error"].(string), `no button "nope"`) {
		t.Errorf("a button not on the Home: %d %v", code, body)
	}
	if code, _ := open("U0ALICE", "about"); code != http.StatusBadRequest {
		t.Errorf("tab about: %d", code)
	}
	if n := len(a.requests()); n != 2 {
		t.Errorf("the app got %d envelopes, want 2", n)
	}
	if code, body := open("U0ALICE", "messages"); code != http.StatusOK {
		t.Errorf("open the Messages tab: %d %v", code, body)
	}
	if opened := a.requests()[2].Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.AppHomeOpenedEvent); opened.Tab != "messages" {
		t.Errorf("the Messages tab sent %+v", opened)
	}
}

// The app's direct message with a person is under Apps, like a channel with its threads, and
// only that person sees it, clicks in it or writes in it.
func TestDirectMessages(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	dm, ts, err := u.api.PostMessage("U0ALICE", slack.MsgOptionText("Please approve", false), slack.MsgOptionBlocks(
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, "*Please approve* the post", false, false), nil, nil),
		slack.NewActionBlock("ap_1", slack.NewButtonBlockElement("approve", "ap_1", plain("Approve")))))
	if err != nil {
		t.Fatal(err)
	}
	if dm != fakeslack.DMChannel("U0ALICE") {
		t.Fatalf("posted in %s", dm)
	}
	if _, _, err := u.api.PostMessage(dm, slack.MsgOptionText("🔔 Reminder: <@U0ALICE>, this request still waits for a decision.", false), slack.MsgOptionTS(ts)); err != nil {
		t.Fatal(err)
	}

	page := u.page(t, "U0ALICE", dm)
	for _, want := range []string{"<strong>Please approve</strong> the post", `<div class="thread"><div class="thread-head">1 reply</div>`, "🔔 Reminder:",
		`class="chan active" href="/?as=U0ALICE&amp;c=DU0ALICE" data-channel="DU0ALICE"`, `<span class="count" title="messages">1</span>`, `id="tab-messages"`} {
		if !strings.Contains(page, want) {
			t.Errorf("alice's direct message misses %s:\n%s", want, page)
		}
	}
	if page := u.page(t, "U0ALICE", "C0PUBLISH"); strings.Contains(page, "# DU0ALICE") {
		t.Error("the direct message is listed among the channels")
	}
	page = u.page(t, "U0BOB", dm)
	if strings.Contains(page, "Please approve") || strings.Contains(page, `data-channel="DU0ALICE"`) || !strings.Contains(page, `data-channel="DU0BOB"`) ||
		!strings.Contains(page, "No messages from approvals yet") {
		t.Errorf("bob, following a link to alice's direct message, does not see only his own:\n%s", page)
	}
	if code, _ := u.post(t, "/click", url.Values{"as": {"U0BOB"}, "channel": {dm}, "ts": {ts}, "action_id": {"approve"}, "value": {"ap_1"}}); code != http.StatusForbidden {
		t.Errorf("bob clicked in alice's direct message: %d", code)
	}
	if code, _ := u.post(t, "/message", url.Values{"as": {"U0BOB"}, "channel": {dm}, "text": {"hi"}}); code != http.StatusForbidden {
		t.Errorf("bob wrote in alice's direct message: %d", code)
	}
	if n := len(u.slack.Messages(dm)); n != 2 {
		t.Errorf("alice's direct message holds %d messages, want 2", n)
	}

	a := startApp(t, u, func(socketmode.Event) any { return nil })
	if code, body := u.post(t, "/click", url.Values{"as": {"U0ALICE"}, "channel": {dm}, "ts": {ts}, "action_id": {"approve"}, "value": {"ap_1"}}); code != http.StatusOK {
		t.Fatalf("alice clicks in her direct message: %d %v", code, body)
	}
	if got := a.requests()[0].Data.(slack.InteractionCallback); got.Container.ChannelID != dm || got.Container.MessageTs != ts || got.User.ID != "U0ALICE" {
		t.Errorf("the app got a click in %+v from %s", got.Container, got.User.ID)
	}
}

// Reminders, escalations and hand-overs are the bot's replies in the request's thread: they show
// there, with people and groups by name.
func TestLifecycleNotesInThreads(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	_, ts, err := u.api.PostMessage("C0PUBLISH", slack.MsgOptionText("Publish the post", false))
	if err != nil {
		t.Fatal(err)
	}
	a := workflow.Approval{
		ID: "ap_1", Channel: "C0PUBLISH", MessageTS: ts, Approvers: []string{"U0ALICE", "S0EDITORS"},
		Policy:   workflow.Policy{Quorum: 2, EscalateTo: []string{"U0CAROL"}},
		Votes:    []workflow.Vote{{UserID: "U0ALICE", DraftIndex: workflow.NoDraft, At: time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)}},
		Deadline: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
	}
	notes := []string{
		blocks.ReminderNotice(a),
		blocks.EscalationNotice(a),
		blocks.DelegationNotice(workflow.Approval{}, workflow.Delegation{From: "U0ALICE", To: "U0BOB"}),
	}
	for _, n := range notes {
		if _, _, err := u.api.PostMessage("C0PUBLISH", slack.MsgOptionText(n, false), slack.MsgOptionTS(ts)); err != nil {
			t.Fatal(err)
		}
	}
	page := u.page(t, "U0CAROL", "C0PUBLISH")
	thread := regexp.MustCompile(`(?s)<div class="thread">.*</article>`).FindString(page)
	text := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(thread, "")
	for _, want := range []string{"3 replies", "🔔 Reminder: @editors, this request still waits for a decision (1 of 2 approvals so far); its deadline is",
		"⏫ Escalated: @carol, nobody has decided this request yet", "↪️ @alice handed this request to @bob, who may decide it now."} {
		if !strings.Contains(text, want) {
			t.Errorf("the thread misses %q:\n%s", want, text)
		}
	}
	if !strings.Contains(thread, `<time class="sdate"`) {
		t.Errorf("the deadline is not a date in the viewer's zone:\n%s", thread)
	}
}
