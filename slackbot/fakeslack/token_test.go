package fakeslack_test

import (
	"errors"
	"testing"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// After RotateBotToken the old token is answered token_revoked, the new
// one works, and a token the fake never issued stays invalid_auth.
func TestRotateBotToken(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	old := s.BotToken()
	s.RotateBotToken("xoxb-rotated")
	if s.BotToken() != "xoxb-rotated" {
		t.Fatalf("BotToken = %q after the rotation", s.BotToken())
	}
	for token, want := range map[string]string{old: "token_revoked", "xoxb-never-issued": "invalid_auth", "xoxb-rotated": ""} {
		_, err := newAPI(t, s, token).AuthTest()
		var resp slack.SlackErrorResponse
		got := ""
		if errors.As(err, &resp) {
			got = resp.Err
		}
		if got != want || (want == "" && err != nil) {
			t.Errorf("auth.test with %s: %v, want %q", token, err, want)
		}
	}
}
