package fakeslack_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

func modal(callbackID string) slack.ModalViewRequest {
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           plain("Reject request"),
		Submit:          plain("Reject"),
		Close:           plain("Cancel"),
		CallbackID:      callbackID,
		PrivateMetadata: "req-42",
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewInputBlock("reason", plain("Reason"), nil, slack.NewPlainTextInputBlockElement(plain("Why?"), "text")),
		}},
	}
}

func TestViewsOpen(t *testing.T) {
	clk := newClock()
	s := newServer(t, fakeslack.Options{Now: clk.Now})
	api := newAPI(t, s, s.BotToken())

	trigger := s.NewTrigger("U1")
	resp, err := api.OpenView(trigger, modal("deny_reason"))
	if err != nil {
		t.Fatalf("OpenView: %v", err)
	}
	if !strings.HasPrefix(resp.View.ID, "V") || resp.View.CallbackID != "deny_reason" || resp.View.PrivateMetadata != "req-42" {
		t.Errorf("view = %+v", resp.View)
	}
	views := s.Views("U1")
	if len(views) != 1 || views[0].ID != resp.View.ID || views[0].CallbackID != "deny_reason" || views[0].PrivateMetadata != "req-42" {
		t.Fatalf("Views(U1) = %+v", views)
	}

	expiring := s.NewTrigger("U1")
	clk.Advance(3*time.Second + time.Millisecond)
	tests := []struct {
		name, trigger, want string
	}{
		{"used twice", trigger, "exchanged_trigger_id"},
		{"expired", expiring, "expired_trigger_id"},
		{"never minted", "1.2.abc", "invalid_trigger_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := api.OpenView(tt.trigger, modal("x")); err == nil || err.Error() != tt.want {
				t.Errorf("OpenView error = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestViewsOpenValidates(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	many := make([]slack.Block, 101)
	for i := range many {
		many[i] = slack.NewDividerBlock()
	}
	huge := make([]slack.Block, 100)
	for i := range huge {
		huge[i] = slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Repeat("x", 3000), false, false), nil, nil)
	}
	tests := []struct {
		name   string
		change func(*slack.ModalViewRequest)
		want   string
	}{
		{"title over 24", func(v *slack.ModalViewRequest) { v.Title = plain(strings.Repeat("t", 25)) }, "invalid_arguments"},
		{"submit over 24", func(v *slack.ModalViewRequest) { v.Submit = plain(strings.Repeat("s", 25)) }, "invalid_arguments"},
		{"private_metadata over 3000", func(v *slack.ModalViewRequest) { v.PrivateMetadata = strings.Repeat("m", 3001) }, "invalid_arguments"},
		{"callback_id over 255", func(v *slack.ModalViewRequest) { v.CallbackID = strings.Repeat("c", 256) }, "invalid_arguments"},
		{"over 100 blocks", func(v *slack.ModalViewRequest) { v.Blocks.BlockSet = many }, "invalid_arguments"},
		{"input without submit", func(v *slack.ModalViewRequest) { v.Submit = nil }, "invalid_arguments"},
		{"not a modal", func(v *slack.ModalViewRequest) { v.Type = slack.VTHomeTab }, "invalid_arguments"},
		{"over 250 kB", func(v *slack.ModalViewRequest) { v.Blocks.BlockSet = huge }, "view_too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := modal("cb")
			tt.change(&v)
			if _, err := api.OpenView(s.NewTrigger("U1"), v); err == nil || err.Error() != tt.want {
				t.Errorf("OpenView error = %v, want %s", err, tt.want)
			}
		})
	}
	if got := s.Views("U1"); len(got) != 0 {
		t.Errorf("invalid views were recorded: %+v", got)
	}
}

// TestDuplicateOptionValuesRefused checks that views.open, views.update,
// chat.postMessage and chat.update refuse a choice whose options share a
// value, as Slack does, naming where through the real slack-go client.
func TestDuplicateOptionValuesRefused(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	radio := func(values ...string) *slack.RadioButtonsBlockElement {
		var opts []*slack.OptionBlockObject
		for _, v := range values {
			opts = append(opts, slack.NewOptionBlockObject(v, plain(v), nil))
		}
		return slack.NewRadioButtonsBlockElement("preset", opts...)
	}
	choice := func(values ...string) slack.ModalViewRequest {
		v := modal("revise")
		v.Blocks.BlockSet = append(v.Blocks.BlockSet, slack.NewInputBlock("preset", plain("Change"), nil, radio(values...)))
		return v
	}
	const want = "[ERROR] duplicate option value: option values must be unique within an element (the first is at /view/blocks/1/element/options/0/value) [json-pointer:/view/blocks/1/element/options/2/value]"
	checkErr := func(t *testing.T, err error, code, message string) {
		t.Helper()
		var resp slack.SlackErrorResponse
		if !errors.As(err, &resp) || resp.Err != code {
			t.Fatalf("error = %v, want %s", err, code)
		}
		if diff := cmp.Diff([]string{message}, resp.ResponseMetadata.Messages); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	}

	t.Run("views.open", func(t *testing.T) {
		_, err := api.OpenView(s.NewTrigger("U1"), choice("Shorter", "More detail", "Shorter"))
		checkErr(t, err, "invalid_arguments", want)
		if got := s.Views("U1"); len(got) != 0 {
			t.Errorf("the view was opened: %+v", got)
		}
	})
	t.Run("views.update", func(t *testing.T) {
		opened, err := api.OpenView(s.NewTrigger("U2"), choice("Shorter", "More detail"))
		if err != nil {
			t.Fatalf("OpenView with distinct values: %v", err)
		}
		_, err = api.UpdateView(choice("Shorter", "More detail", "Shorter"), "", "", opened.View.ID)
		checkErr(t, err, "invalid_arguments", want)
		if got := s.Views("U2")[0]; got.Updates != 0 {
			t.Errorf("the view was updated: %+v", got)
		}
	})
	section := slack.NewSectionBlock(plain("Pick one"), nil, slack.NewAccessory(radio("a", "b", "a")))
	const inMessage = "[ERROR] duplicate option value: option values must be unique within an element (the first is at /blocks/0/accessory/options/0/value) [json-pointer:/blocks/0/accessory/options/2/value]"
	t.Run("chat.postMessage", func(t *testing.T) {
		_, _, err := api.PostMessage("C1", slack.MsgOptionBlocks(section))
		checkErr(t, err, "invalid_blocks", inMessage)
		if got := s.Messages("C1"); len(got) != 0 {
			t.Errorf("the message was posted: %+v", got)
		}
	})
	t.Run("chat.update", func(t *testing.T) {
		_, ts, err := api.PostMessage("C2", slack.MsgOptionText("request", false))
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, err = api.UpdateMessage("C2", ts, slack.MsgOptionBlocks(section))
		checkErr(t, err, "invalid_blocks", inMessage)
		if got, _ := s.Message("C2", ts); got.Updates != 0 {
			t.Errorf("the message was updated: %+v", got)
		}
	})
}

func TestViewsUpdate(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	opened, err := api.OpenView(s.NewTrigger("U1"), modal("deny_reason"))
	if err != nil {
		t.Fatal(err)
	}
	next := modal("deny_reason")
	next.PrivateMetadata = "req-43"
	if _, err := api.UpdateView(next, "", "", opened.View.ID); err != nil {
		t.Fatalf("UpdateView: %v", err)
	}
	if got := s.Views("U1")[0]; got.PrivateMetadata != "req-43" || got.Updates != 1 {
		t.Errorf("view after update = %+v", got)
	}
	if _, err := api.UpdateView(next, "", "", "V404"); err == nil || err.Error() != "not_found" {
		t.Errorf("unknown view error = %v, want not_found", err)
	}
	if _, err := api.UpdateView(next, "", "stale-hash", opened.View.ID); err == nil || err.Error() != "hash_conflict" {
		t.Errorf("stale hash error = %v, want hash_conflict", err)
	}
}

// TestRejectFlow plays the whole modal flow: click, views.open with the click's trigger, a
// submission answered with errors, then a good submission that closes the view.
func TestRejectFlow(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	api := newAPI(t, s, s.BotToken())
	b := startBot(t, s)
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("request", false), slack.MsgOptionBlocks(approvalBlocks()...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Click("U2", "C1", ts, "reject", ""); err != nil {
		t.Fatalf("Click: %v", err)
	}
	click := b.next(t, socketmode.EventTypeInteractive)
	b.ack(t, click.Request, nil)
	cb := click.Data.(slack.InteractionCallback)
	view, err := api.OpenView(cb.TriggerID, modal("deny_reason"))
	if err != nil {
		t.Fatalf("OpenView with the click's trigger: %v", err)
	}

	if _, err := s.Submit("U2", view.View.ID, map[string]map[string]any{"nope": {"text": map[string]any{"type": "plain_text_input", "value": "x"}}}); err == nil {
		t.Errorf("Submit with an unknown block_id succeeded")
	}
	if _, err := s.Submit("U3", view.View.ID, nil); err == nil {
		t.Errorf("Submit of another user's view succeeded")
	}

	values := map[string]map[string]any{"reason": {"text": map[string]any{"type": "plain_text_input", "value": ""}}}
	id, err := s.Submit("U2", view.View.ID, values)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	sub := b.next(t, socketmode.EventTypeInteractive)
	got := sub.Data.(slack.InteractionCallback)
	if got.Type != slack.InteractionTypeViewSubmission || got.View.CallbackID != "deny_reason" || got.View.PrivateMetadata != "req-42" || got.User.ID != "U2" {
		t.Errorf("submission = type %s callback %s metadata %s user %s", got.Type, got.View.CallbackID, got.View.PrivateMetadata, got.User.ID)
	}
	if _, ok := got.View.State.Values["reason"]["text"]; !ok {
		t.Errorf("state values = %+v, want reason/text", got.View.State.Values)
	}
	b.ack(t, sub.Request, slack.NewErrorsViewSubmissionResponse(map[string]string{"reason": "A reason is required"}))
	ack, err := s.WaitAck(waitCtx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(ack.Payload, &payload); err != nil || payload["response_action"] != "errors" {
		t.Errorf("ack payload = %s, want response_action errors", ack.Payload)
	}
	if s.Views("U2")[0].Closed {
		t.Fatalf("view closed after an errors response")
	}

	values["reason"]["text"] = map[string]any{"type": "plain_text_input", "value": "too risky"}
	id, err = s.Submit("U2", view.View.ID, values)
	if err != nil {
		t.Fatalf("second Submit: %v", err)
	}
	b.ack(t, b.next(t, socketmode.EventTypeInteractive).Request, nil)
	if _, err := s.WaitAck(waitCtx(t), id); err != nil {
		t.Fatal(err)
	}
	if !s.Views("U2")[0].Closed {
		t.Errorf("view still open after a plain ack")
	}
}
