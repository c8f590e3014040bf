package fakeslack_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// What a page standing in for Slack needs: people's names, the modal a person sees with the errors
// the app answered, closing a modal, whether an envelope was handled, and people's own messages.

func TestUserProfiles(t *testing.T) {
	s := newServer(t, fakeslack.Options{Users: []fakeslack.User{{ID: "U1", Name: "alice", RealName: "Alice Archer", TZ: "Europe/Paris"}}})
	api := newAPI(t, s, s.BotToken())
	s.SetUser(fakeslack.User{ID: "U2", Name: "bob", RealName: "Bob Baker"})
	tests := []struct {
		id, name, realName, tz string
	}{
		{"U1", "alice", "Alice Archer", "Europe/Paris"},
		{"U2", "bob", "Bob Baker", "UTC"},
		{"U3", "u3", "U3", "UTC"},
	}
	for _, tt := range tests {
		u, err := api.GetUserInfo(tt.id)
		if err != nil {
			t.Fatalf("GetUserInfo(%s): %v", tt.id, err)
		}
		if u.Name != tt.name || u.RealName != tt.realName || u.TZ != tt.tz || u.Profile.DisplayName != tt.name {
			t.Errorf("GetUserInfo(%s) = name %q real %q tz %q display %q", tt.id, u.Name, u.RealName, u.TZ, u.Profile.DisplayName)
		}
	}
	want := []fakeslack.User{{ID: "U1", Name: "alice", RealName: "Alice Archer", TZ: "Europe/Paris"}, {ID: "U2", Name: "bob", RealName: "Bob Baker"}}
	if diff := cmp.Diff(want, s.Users()); diff != "" {
		t.Errorf("Users (-want +got):\n%s", diff)
	}
}

func TestOpenViewShowsErrorsUntilTheNextSubmission(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	api := newAPI(t, s, s.BotToken())
	b := startBot(t, s)
	if _, ok := s.OpenView("U2"); ok {
		t.Fatal("OpenView before any view was opened")
	}
	first, err := api.OpenView(s.NewTrigger("U2"), modal("deny_reason"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := api.OpenView(s.NewTrigger("U2"), modal("deny_reason"))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := s.OpenView("U2"); !ok || v.ID != second.View.ID {
		t.Fatalf("OpenView = %s, %v; want the last opened %s", v.ID, ok, second.View.ID)
	}
	if _, ok := s.OpenView("U3"); ok {
		t.Error("OpenView shows U2's view to U3")
	}

	values := map[string]map[string]any{"reason": {"text": map[string]any{"type": "plain_text_input", "value": nil}}}
	id, err := s.Submit("U2", second.View.ID, values)
	if err != nil {
		t.Fatal(err)
	}
	b.ack(t, b.next(t, socketmode.EventTypeInteractive).Request, slack.NewErrorsViewSubmissionResponse(map[string]string{"reason": "A reason is required"}))
	if _, err := s.WaitHandled(waitCtx(t), id); err != nil {
		t.Fatalf("WaitHandled: %v", err)
	}
	v, ok := s.OpenView("U2")
	if !ok || v.ID != second.View.ID || !cmp.Equal(v.Errors, map[string]string{"reason": "A reason is required"}) {
		t.Fatalf("after an errors ack OpenView = %s %v errors %v", v.ID, ok, v.Errors)
	}
	v.Errors["reason"] = "changed by the caller"
	if again, _ := s.OpenView("U2"); again.Errors["reason"] != "A reason is required" {
		t.Error("OpenView shares its Errors map with the caller")
	}

	id, err = s.Submit("U2", second.View.ID, values)
	if err != nil {
		t.Fatal(err)
	}
	b.ack(t, b.next(t, socketmode.EventTypeInteractive).Request, nil)
	if _, err := s.WaitHandled(waitCtx(t), id); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.OpenView("U2"); !ok || v.ID != first.View.ID || v.Errors != nil {
		t.Errorf("after a closing ack OpenView = %s %v errors %v; want the first view, without errors", v.ID, ok, v.Errors)
	}
}

func TestCloseView(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	api := newAPI(t, s, s.BotToken())
	b := startBot(t, s)

	quiet, err := api.OpenView(s.NewTrigger("U2"), modal("quiet"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CloseView("U3", quiet.View.ID); err == nil {
		t.Error("U3 closed U2's view")
	}
	id, err := s.CloseView("U2", quiet.View.ID)
	if err != nil || id != "" {
		t.Fatalf("CloseView without notify_on_close = %q, %v; want no envelope", id, err)
	}
	if _, ok := s.OpenView("U2"); ok {
		t.Error("the view is still open")
	}
	if _, err := s.CloseView("U2", quiet.View.ID); err == nil {
		t.Error("a closed view closed twice")
	}

	req := modal("told")
	req.NotifyOnClose = true
	told, err := api.OpenView(s.NewTrigger("U2"), req)
	if err != nil {
		t.Fatal(err)
	}
	id, err = s.CloseView("U2", told.View.ID)
	if err != nil || id == "" {
		t.Fatalf("CloseView with notify_on_close = %q, %v; want an envelope", id, err)
	}
	e := b.next(t, socketmode.EventTypeInteractive)
	cb := e.Data.(slack.InteractionCallback)
	if cb.Type != slack.InteractionTypeViewClosed || cb.View.ID != told.View.ID || cb.View.CallbackID != "told" || cb.User.ID != "U2" {
		t.Errorf("envelope = type %s view %s callback %s user %s", cb.Type, cb.View.ID, cb.View.CallbackID, cb.User.ID)
	}
}

func TestWaitHandled(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: 200 * time.Millisecond})
	if _, err := s.Slash("U1", "C1", "/approvals", "pending"); !errors.Is(err, fakeslack.ErrNoConnection) {
		t.Fatalf("Slash without a socket: %v", err)
	}
	b := startBot(t, s)

	acked, err := s.Slash("U1", "C1", "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	b.ack(t, b.next(t, socketmode.EventTypeSlashCommand).Request, map[string]any{"text": "Nothing waits for you."})
	ack, err := s.WaitHandled(waitCtx(t), acked)
	if err != nil || ack.EnvelopeID != acked {
		t.Fatalf("WaitHandled(acked) = %+v, %v", ack, err)
	}
	if eph := s.Ephemerals("U1"); len(eph) != 1 || eph[0].Text != "Nothing waits for you." {
		t.Errorf("the ack's answer is not shown once WaitHandled returns: %+v", eph)
	}

	ignored, err := s.Slash("U1", "C1", "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	b.next(t, socketmode.EventTypeSlashCommand) // never acked
	if _, err := s.WaitHandled(waitCtx(t), ignored); !errors.Is(err, fakeslack.ErrNotAcked) {
		t.Errorf("WaitHandled(unacked) = %v, want ErrNotAcked", err)
	}
}

func TestPostMessageAsAndChannels(t *testing.T) {
	s := newServer(t, fakeslack.Options{Now: newClock().Now})
	if got := s.Channels(); len(got) != 0 {
		t.Errorf("Channels of a new fake = %v", got)
	}
	parent, err := s.PostMessageAs("U1", "C2", "", "hello")
	if err != nil {
		t.Fatal(err)
	}
	reply, err := s.PostMessageAs("U2", "C2", parent, "hi <!channel>")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PostMessageAs("U2", "C1", "1.000000", "lost"); err == nil {
		t.Error("a reply to an unknown thread was posted")
	}
	if _, err := s.PostMessageAs("U2", "C1", "", ""); err == nil {
		t.Error("an empty message was posted")
	}
	s.PostMessage("C1", "from a test")
	if diff := cmp.Diff([]string{"C1", "C2"}, s.Channels()); diff != "" {
		t.Errorf("Channels (-want +got):\n%s", diff)
	}
	got := s.Replies("C2", parent)
	if len(got) != 1 || got[0].TS != reply || got[0].User != "U2" || got[0].Text != "hi <!channel>" {
		t.Errorf("Replies = %+v", got)
	}
}
