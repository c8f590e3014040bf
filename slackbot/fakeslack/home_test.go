package fakeslack_test

import (
	"context"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// conversations.open gives one D… channel per person, the same every
// time; posting to the user ID posts there; an ephemeral message in it
// goes to its person only.
func TestDirectMessages(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	ctx := context.Background()

	ch, noOp, _, err := api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{"U0ALICE"}})
	if err != nil || ch.ID != fakeslack.DMChannel("U0ALICE") || noOp {
		t.Fatalf("open = %+v, no_op %v, %v; want %s", ch, noOp, err, fakeslack.DMChannel("U0ALICE"))
	}
	posted, ts, err := api.PostMessageContext(ctx, "U0ALICE", slack.MsgOptionText("hello", false))
	if err != nil || posted != ch.ID {
		t.Fatalf("post to the user ID landed in %q: %v", posted, err)
	}
	if _, ok := s.Message(ch.ID, ts); !ok || fakeslack.DMUser(ch.ID) != "U0ALICE" {
		t.Error("the message is not in the direct message")
	}
	again, noOp, _, err := api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{"U0ALICE"}})
	if err != nil || again.ID != ch.ID || !noOp {
		t.Errorf("reopen = %+v, no_op %v, %v", again, noOp, err)
	}
	if _, err := api.PostEphemeralContext(ctx, ch.ID, "U0ALICE", slack.MsgOptionText("for you", false)); err != nil {
		t.Errorf("ephemeral to the person: %v", err)
	}
	if _, err := api.PostEphemeralContext(ctx, ch.ID, "U0BOB", slack.MsgOptionText("not yours", false)); err == nil || err.Error() != "user_not_in_channel" {
		t.Errorf("ephemeral to somebody else: %v, want user_not_in_channel", err)
	}
	for users, want := range map[string]string{s.BotUserID(): "cannot_dm_bot", "U0A,U0B": "not_supported", "nobody": "user_not_found"} {
		_, _, _, err := api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: strings.Split(users, ",")})
		if err == nil || err.Error() != want {
			t.Errorf("open %s: %v, want %s", users, err, want)
		}
	}
}

// views.publish keeps one Home per person with a stable ID and checks it
// as a home view; opening the tab sends app_home_opened with it; a click
// on it is a block_actions whose container is the view.
func TestHomeTab(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	b := startBot(t, s)
	ctx := context.Background()

	home := slack.HomeTabViewRequest{Type: slack.VTHomeTab, CallbackID: "home", PrivateMetadata: "U0ALICE",
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewActionBlock("ap_1",
			slack.NewButtonBlockElement("approve", "ap_1", slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false)))}}}
	first, err := api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: "U0ALICE", View: home})
	if err != nil {
		t.Fatal(err)
	}
	hash := first.View.Hash
	second, err := api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: "U0ALICE", View: home, Hash: &hash})
	if err != nil || second.View.ID != first.View.ID {
		t.Fatalf("republish = %+v, %v; want the same view ID %s", second, err, first.View.ID)
	}
	if _, err := api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: "U0ALICE", View: home, Hash: &hash}); err == nil || err.Error() != "hash_conflict" {
		t.Errorf("stale hash: %v, want hash_conflict", err)
	}
	bad := home
	bad.Type = slack.VTModal
	if _, err := api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: "U0ALICE", View: bad}); err == nil || err.Error() != "invalid_arguments" {
		t.Errorf("a modal as a Home: %v, want invalid_arguments", err)
	}

	if _, err := s.OpenHome("U0ALICE", "home"); err != nil {
		t.Fatal(err)
	}
	e := b.next(t, socketmode.EventTypeEventsAPI)
	b.ack(t, e.Request, nil)
	opened, ok := e.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.AppHomeOpenedEvent)
	if !ok || opened.User != "U0ALICE" || opened.Tab != "home" || opened.View == nil || opened.View.ID != first.View.ID ||
		opened.Channel != fakeslack.DMChannel("U0ALICE") {
		t.Fatalf("app_home_opened = %+v", opened)
	}

	if _, err := s.ClickHome("U0ALICE", "approve", "ap_1"); err != nil {
		t.Fatal(err)
	}
	e = b.next(t, socketmode.EventTypeInteractive)
	b.ack(t, e.Request, nil)
	cb := e.Data.(slack.InteractionCallback)
	if cb.Container.Type != "view" || cb.Container.ViewID != first.View.ID || cb.View.Type != slack.VTHomeTab ||
		cb.View.PrivateMetadata != "U0ALICE" || cb.Channel.ID != "" || cb.ResponseURL != "" || cb.TriggerID == "" {
		t.Errorf("home click = %+v", cb)
	}
	if _, err := s.ClickHome("U0BOB", "approve", "ap_1"); err == nil {
		t.Error("a click on the Home of somebody who has none was sent")
	}
}

// A users_select input is submitted with a selected user.
func TestUsersSelectSubmission(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	view := slack.ModalViewRequest{Type: slack.VTModal, Title: slack.NewTextBlockObject(slack.PlainTextType, "Hand over", false, false),
		Submit: slack.NewTextBlockObject(slack.PlainTextType, "Go", false, false),
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewInputBlock("to", slack.NewTextBlockObject(slack.PlainTextType, "To", false, false), nil,
			slack.NewOptionsSelectBlockElement(slack.OptTypeUser, slack.NewTextBlockObject(slack.PlainTextType, "Pick", false, false), "who"))}}}
	resp, err := api.OpenViewContext(context.Background(), s.NewTrigger("U0ALICE"), view)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit("U0ALICE", resp.ID, map[string]map[string]any{"to": {"who": map[string]any{"type": "users_select"}}}); err == nil {
		t.Error("a users_select without selected_user was submitted")
	}
	b := startBot(t, s)
	if _, err := s.Submit("U0ALICE", resp.ID, map[string]map[string]any{"to": {"who": map[string]any{"type": "users_select", "selected_user": "U0BOB"}}}); err != nil {
		t.Fatal(err)
	}
	e := b.next(t, socketmode.EventTypeInteractive)
	b.ack(t, e.Request, nil)
	if got := e.Data.(slack.InteractionCallback).View.State.Values["to"]["who"].SelectedUser; got != "U0BOB" {
		t.Errorf("selected_user = %q", got)
	}
}

// An optional users_select left empty is submitted as Slack sends it, "selected_user": null; a
// required one cannot be.
func TestUsersSelectLeftEmpty(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	text := func(s string) *slack.TextBlockObject {
		return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
	}
	cc := slack.NewInputBlock("cc", text("Copy"), nil, slack.NewOptionsSelectBlockElement(slack.OptTypeUser, text("Pick"), "who"))
	cc.Optional = true
	view := slack.ModalViewRequest{Type: slack.VTModal, Title: text("Hand over"), Submit: text("Go"),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewInputBlock("to", text("To"), nil, slack.NewOptionsSelectBlockElement(slack.OptTypeUser, text("Pick"), "who")),
			cc,
		}}}
	resp, err := api.OpenViewContext(context.Background(), s.NewTrigger("U0ALICE"), view)
	if err != nil {
		t.Fatal(err)
	}
	empty := map[string]any{"type": "users_select", "selected_user": nil}
	if _, err := s.Submit("U0ALICE", resp.ID, map[string]map[string]any{"to": {"who": empty}}); err == nil {
		t.Error("a required users_select was submitted empty")
	}
	b := startBot(t, s)
	if _, err := s.Submit("U0ALICE", resp.ID, map[string]map[string]any{
		"to": {"who": map[string]any{"type": "users_select", "selected_user": "U0BOB"}},
		"cc": {"who": empty},
	}); err != nil {
		t.Fatalf("an optional users_select left empty: %v", err)
	}
	e := b.next(t, socketmode.EventTypeInteractive)
	b.ack(t, e.Request, nil)
	values := e.Data.(slack.InteractionCallback).View.State.Values
	if got := values["cc"]["who"]; got.Type != "users_select" || got.SelectedUser != "" {
		t.Errorf("cc = %+v", got)
	}
}
