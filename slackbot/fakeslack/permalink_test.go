package fakeslack_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

func TestGetPermalink(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	_, root, err := api.PostMessage("C1", slack.MsgOptionText("root", false))
	if err != nil {
		t.Fatal(err)
	}
	_, reply, err := api.PostMessage("C1", slack.MsgOptionText("reply", false), slack.MsgOptionTS(root))
	if err != nil {
		t.Fatal(err)
	}
	auth, err := api.AuthTest()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, channel, ts string
		want, wantErr     string
	}{
		{"message", "C1", root, auth.URL + "archives/C1/p" + root[:10] + root[11:], ""},
		{"thread reply", "C1", reply, auth.URL + "archives/C1/p" + reply[:10] + reply[11:] + "?thread_ts=" + root + "&cid=C1", ""},
		{"unknown message", "C1", "1.000001", "", "message_not_found"},
		{"unknown channel", "C9", root, "", "channel_not_found"},
	}
	for _, tt := range tests {
		got, err := api.GetPermalink(&slack.PermalinkParameters{Channel: tt.channel, Ts: tt.ts})
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %s", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// A post whose answer is lost: Slack shows the message, the caller sees a
// failure.
func TestFailMethodAfterApplying(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	s.FailMethodAfterApplying("chat.postMessage", 1, http.StatusInternalServerError)
	_, _, err := api.PostMessage("C1", slack.MsgOptionText("lost answer", false))
	var sc slack.StatusCodeError
	if !errors.As(err, &sc) || sc.Code != http.StatusInternalServerError {
		t.Fatalf("error = %v, want StatusCodeError 500", err)
	}
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText("answered", false)); err != nil {
		t.Fatalf("second post: %v", err)
	}
	msgs := s.Messages("C1")
	if len(msgs) != 2 || msgs[0].Text != "lost answer" {
		t.Errorf("messages = %+v, want the failed post shown, then the second", msgs)
	}
}

func TestRefuseChannel(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("before", false))
	if err != nil {
		t.Fatal(err)
	}
	s.RefuseChannel("C1", "not_in_channel")
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText("x", false)); err == nil || err.Error() != "not_in_channel" {
		t.Errorf("post in a refusing channel = %v, want not_in_channel", err)
	}
	if _, _, _, err := api.UpdateMessage("C1", ts, slack.MsgOptionText("x", false)); err == nil || err.Error() != "not_in_channel" {
		t.Errorf("update in a refusing channel = %v, want not_in_channel", err)
	}
	if _, _, err := api.PostMessage("C2", slack.MsgOptionText("other channels work", false)); err != nil {
		t.Error(err)
	}
	s.RefuseChannel("C1", "")
	if _, _, _, err := api.UpdateMessage("C1", ts, slack.MsgOptionText("after", false)); err != nil {
		t.Errorf("update after healing: %v", err)
	}
}
