package fakeslack_test

import (
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// Picking in a menu sends block_actions with the element's action and the
// selected option, no value of its own; a static_select's pick is the
// message's state in that person's later clicks, and only theirs.
func TestMenusAndState(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	api := newAPI(t, s, s.BotToken())
	b := startBot(t, s)
	opt := func(v string) *slack.OptionBlockObject {
		return slack.NewOptionBlockObject(v, slack.NewTextBlockObject(slack.PlainTextType, "Option "+v, false, false), nil)
	}
	approve := slack.NewButtonBlockElement("approve", "ap_1", slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false)).
		WithConfirm(slack.NewConfirmationBlockObject(
			slack.NewTextBlockObject(slack.PlainTextType, "Sure?", false, false),
			slack.NewTextBlockObject(slack.MarkdownType, "Publishes draft 2 now.", false, false),
			slack.NewTextBlockObject(slack.PlainTextType, "Yes", false, false),
			slack.NewTextBlockObject(slack.PlainTextType, "No", false, false)))
	actions := slack.NewActionBlock("ap_1",
		slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, slack.NewTextBlockObject(slack.PlainTextType, "Pick", false, false), "pick", opt("0"), opt("1")),
		approve,
		slack.NewOverflowBlockElement("more", opt("skip"), opt("delegate")))
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("request", false), slack.MsgOptionBlocks(actions))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := s.Message("C1", ts)
	if got := fakeslack.ButtonActions(msg.Blocks); len(got) != 1 || got[0].Confirm != "Publishes draft 2 now." {
		t.Errorf("buttons = %+v, want Approve with its confirm text", got)
	}
	if got := fakeslack.MenuOptions(msg.Blocks); len(got) != 4 || got[3] != (fakeslack.MenuOption{BlockID: "ap_1", ActionID: "more", Type: "overflow", Value: "delegate", Text: "Option delegate"}) {
		t.Errorf("menu options = %+v", got)
	}

	next := func() slack.InteractionCallback {
		t.Helper()
		ev := b.next(t, socketmode.EventTypeInteractive)
		b.ack(t, ev.Request, nil)
		return ev.Data.(slack.InteractionCallback)
	}
	if _, err := s.Choose("U1", "C1", ts, "more", "skip"); err != nil {
		t.Fatal(err)
	}
	cb := next()
	act := cb.ActionCallback.BlockActions[0]
	if act.Type != "overflow" || act.ActionID != "more" || act.BlockID != "ap_1" || act.Value != "" || act.SelectedOption.Value != "skip" {
		t.Errorf("overflow action = %+v", act)
	}
	if _, err := s.Choose("U1", "C1", ts, "pick", "1"); err != nil {
		t.Fatal(err)
	}
	if act := next().ActionCallback.BlockActions[0]; act.Type != "static_select" || act.SelectedOption.Value != "1" {
		t.Errorf("select action = %+v", act)
	}
	if _, err := s.Click("U1", "C1", ts, "approve", "ap_1"); err != nil {
		t.Fatal(err)
	}
	cb = next()
	if cb.BlockActionState == nil || cb.BlockActionState.Values["ap_1"]["pick"].SelectedOption.Value != "1" {
		t.Errorf("U1's click carries state %+v, want their pick", cb.BlockActionState)
	}
	if _, err := s.Click("U2", "C1", ts, "approve", "ap_1"); err != nil {
		t.Fatal(err)
	}
	if cb := next(); cb.BlockActionState != nil && len(cb.BlockActionState.Values) != 0 {
		t.Errorf("U2's click carries U1's state: %+v", cb.BlockActionState.Values)
	}
	if _, err := s.Click("U1", "C1", ts, "delegate", "ap_1"); err != nil {
		t.Fatalf("Click on an action the message has in a menu: %v", err)
	}
	if act := next().ActionCallback.BlockActions[0]; act.ActionID != "more" || act.SelectedOption.Value != "delegate" {
		t.Errorf("Click of a menu option = %+v", act)
	}
	if _, err := s.Choose("U1", "C1", ts, "more", "withdraw"); err == nil {
		t.Error("Choose of an option the menu lacks succeeded")
	}
}

// users.info says what kind of account a user is.
func TestUserAccountKinds(t *testing.T) {
	s := newServer(t, fakeslack.Options{BotUserID: "U0BOT", Users: []fakeslack.User{
		{ID: "U0APP", IsBot: true}, {ID: "U0GONE", Deleted: true}, {ID: "U0GUEST", IsRestricted: true}, {ID: "U0VISIT", IsUltraRestricted: true},
	}})
	api := newAPI(t, s, s.BotToken())
	tests := []struct {
		id                                  string
		bot, deleted, restricted, ultraRest bool
	}{
		{"U0PERSON", false, false, false, false},
		{"U0BOT", true, false, false, false},
		{"U0APP", true, false, false, false},
		{"U0GONE", false, true, false, false},
		{"U0GUEST", false, false, true, false},
		{"U0VISIT", false, false, false, true},
	}
	for _, tt := range tests {
		u, err := api.GetUserInfo(tt.id)
		if err != nil {
			t.Fatalf("%s: %v", tt.id, err)
		}
		if u.IsBot != tt.bot || u.Deleted != tt.deleted || u.IsRestricted != tt.restricted || u.IsUltraRestricted != tt.ultraRest {
			t.Errorf("%s = bot %v deleted %v restricted %v ultra %v", tt.id, u.IsBot, u.Deleted, u.IsRestricted, u.IsUltraRestricted)
		}
	}
	if _, err := api.GetUserInfo("not-a-user"); err == nil || err.Error() != "user_not_found" {
		t.Errorf("GetUserInfo(not-a-user) = %v, want user_not_found", err)
	}
}
