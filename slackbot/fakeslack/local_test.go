package fakeslack_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// TestWebPagesCannotReachTheFake: the fake listens on loopback for the
// programs of this machine; a web page in its browser, whatever it sends,
// cannot call the Web API, answer a response URL or open a socket.
func TestWebPagesCannotReachTheFake(t *testing.T) {
	t.Parallel()
	s := newServer(t, fakeslack.Options{})
	authTest := s.APIURL() + "auth.test?token=" + url.QueryEscape(s.BotToken())
	tests := []struct {
		name   string
		header http.Header
		host   string
	}{
		{"a page's fetch (Sec-Fetch-Site)", http.Header{"Sec-Fetch-Site": {"cross-site"}}, ""},
		{"a page on another localhost port", http.Header{"Sec-Fetch-Site": {"same-site"}, "Sec-Fetch-Mode": {"no-cors"}}, ""},
		{"a page's form post (Origin)", http.Header{"Origin": {"http://evil.example"}}, ""},
		{"the stand-in page's own origin", http.Header{"Origin": {"http://127.0.0.1:8080"}}, ""},
		{"DNS rebinding (Host)", nil, "rebind.evil.example:80"},
	}
	for _, tt := range tests {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			req, err := http.NewRequestWithContext(t.Context(), method, authTest, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s, %s auth.test: status %d, want 403", tt.name, method, resp.StatusCode)
			}
		}
	}

	// The same call as a program makes it is answered.
	resp, err := http.Get(authTest)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a program's auth.test: status %d, want 200", resp.StatusCode)
	}

	// A page's WebSocket carries the page's Origin: refused before the
	// ticket is even looked at, so the ticket stays good for the bot.
	_, u, err := newAPI(t, s, s.BotToken()).StartSocketModeContext(waitCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, resp, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {"http://evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a page's socket: err %v, response %v; want 403", err, resp)
	}
	ws, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {"https://api.slack.com"}})
	if err != nil {
		t.Fatalf("slack-go's socket after the refused one: %v", err)
	}
	ws.Close()
}

// TestTicketsAndTokensAreUnguessable: each server makes its own tokens,
// each connection its own ticket, and neither follows a sequence.
func TestTicketsAndTokensAreUnguessable(t *testing.T) {
	t.Parallel()
	a, b := newServer(t, fakeslack.Options{}), newServer(t, fakeslack.Options{})
	if a.BotToken() == b.BotToken() || a.AppToken() == b.AppToken() {
		t.Errorf("two servers share a token: %v", a.BotToken() == b.BotToken())
	}
	for _, tok := range []string{a.BotToken(), a.AppToken()} {
		if len(tok) < len("xoxb-fake-")+26 {
			t.Errorf("token %d characters long; want 128 random bits after the prefix", len(tok))
		}
	}
	api := newAPI(t, a, a.BotToken())
	seen := map[string]bool{}
	for range 3 {
		_, u, err := api.StartSocketModeContext(waitCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		ticket := parsed.Query().Get("ticket")
		if len(ticket) < 26 || seen[ticket] || strings.Contains(ticket, "0000") {
			t.Errorf("ticket %q: want a fresh 128-bit random value", ticket)
		}
		seen[ticket] = true
	}
	guessed := strings.Replace(a.APIURL(), "http", "ws", 1)
	guessed = strings.TrimSuffix(guessed, "/api/") + "/link/?ticket=ticket-000001"
	if _, resp, err := websocket.DefaultDialer.Dial(guessed, http.Header{"Origin": {"https://api.slack.com"}}); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a guessed ticket: err %v, response %v; want 401", err, resp)
	}
}
