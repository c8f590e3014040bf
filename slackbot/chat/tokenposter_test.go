package chat

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// storedToken is a TokenSource whose stored token the test rotates, as a
// secret is rotated; it counts the reads.
type storedToken struct {
	mu     sync.Mutex
	stored string
	err    error
	reads  int
	cached string
}

func (s *storedToken) Token(_ context.Context, refresh bool) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached != "" && !refresh {
		return s.cached, nil
	}
	s.reads++
	if s.err != nil {
		return "", s.err
	}
	s.cached = s.stored
	return s.cached, nil
}

func (s *storedToken) set(token string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stored, s.err = token, err
}

func (s *storedToken) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

const staleToken = "xoxb-stale-rotated-away"

// newTokenPoster starts a fake Slack that accepts only its own bot token,
// and a TokenPoster whose source holds the stale token at cold start.
func newTokenPoster(t *testing.T) (*fakeslack.Server, *storedToken, *TokenPoster) {
	t.Helper()
	fs, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	src := &storedToken{stored: staleToken}
	p, err := NewTokenPoster(context.Background(), src, func(token string) *Poster {
		return NewPoster(slack.New(token, slack.OptionAPIURL(fs.APIURL())))
	})
	if err != nil {
		t.Fatal(err)
	}
	return fs, src, p
}

// A token Slack refuses is read again once; the call is repeated with the
// rotated token and lands once.
func TestTokenPosterRereadsARefusedToken(t *testing.T) {
	t.Parallel()
	fs, src, p := newTokenPoster(t)
	src.set(fs.BotToken(), nil) // the secret was rotated after the cold start
	a := workflowtest.SampleApproval()
	a.Channel = "C1"
	ch, ts, err := p.PostRequest(context.Background(), a)
	if err != nil {
		t.Fatalf("PostRequest = %v, want it posted with the rotated token", err)
	}
	if msgs := fs.Messages("C1"); len(msgs) != 1 || msgs[0].TS != ts || ch != "C1" {
		t.Errorf("channel has %d messages, want the one request", len(msgs))
	}
	if got := src.count(); got != 2 {
		t.Errorf("token read %d times, want 2 (cold start, after invalid_auth)", got)
	}
	if got := fs.Calls("chat.postMessage"); got != 2 {
		t.Errorf("chat.postMessage called %d times, want 2 (refused, then posted)", got)
	}
	link, err := p.Permalink(context.Background(), ch, ts)
	if err != nil || link == "" || src.count() != 2 {
		t.Errorf("Permalink = %q, %v after %d reads; want the new token kept", link, err, src.count())
	}
}

func TestTokenPosterGivesUpOnTheSameOrAnUnreadableToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		stored    string
		readErr   error
		wantCalls int
		want      string
	}{
		{"the stored token is the refused one", staleToken, nil, 1, "slack chat.postMessage: invalid_auth"},
		{"the token cannot be read again", "", errors.New("read the Slack bot token: secret approvals/slack not found"), 1,
			"slack chat.postMessage: invalid_auth (the bot token (SLACK_BOT_TOKEN, or botToken in the SLACK_SECRET_ARN secret) is not valid); reading the bot token again failed: read the Slack bot token: secret approvals/slack not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs, src, p := newTokenPoster(t)
			src.set(tt.stored, tt.readErr)
			a := workflowtest.SampleApproval()
			a.Channel = "C1"
			_, _, err := p.PostRequest(context.Background(), a)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Code != "invalid_auth" || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("PostRequest = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), staleToken) || strings.Contains(err.Error(), fs.BotToken()) {
				t.Errorf("error %q holds a token", err)
			}
			if got := fs.Calls("chat.postMessage"); got != tt.wantCalls || src.count() != 2 {
				t.Errorf("%d calls, %d reads; want %d calls and one read again", got, src.count(), tt.wantCalls)
			}
		})
	}
}

// Other refusals are not about the token: nothing is read again.
func TestTokenPosterKeepsTheTokenOnOtherErrors(t *testing.T) {
	t.Parallel()
	fs, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	src := &storedToken{stored: fs.BotToken()}
	p, err := NewTokenPoster(context.Background(), src, func(token string) *Poster {
		return NewPoster(slack.New(token, slack.OptionAPIURL(fs.APIURL())))
	})
	if err != nil {
		t.Fatal(err)
	}
	fs.RefuseChannel("C1", "channel_not_found")
	a := workflowtest.SampleApproval()
	a.Channel = "C1"
	if _, _, err := p.PostRequest(context.Background(), a); err == nil || !strings.Contains(err.Error(), "channel_not_found") {
		t.Fatalf("PostRequest = %v, want channel_not_found", err)
	}
	if src.count() != 1 || fs.Calls("chat.postMessage") != 1 {
		t.Errorf("%d reads, %d calls; want 1 and 1", src.count(), fs.Calls("chat.postMessage"))
	}
}

func TestNewTokenPosterReturnsTheSourceError(t *testing.T) {
	t.Parallel()
	src := &storedToken{err: errors.New("read the Slack bot token: secret x not found")}
	if _, err := NewTokenPoster(context.Background(), src, nil); err == nil || err.Error() != "read the Slack bot token: secret x not found" {
		t.Errorf("NewTokenPoster = %v", err)
	}
	if got, _ := StaticToken("xoxb-1").Token(context.Background(), true); got != "xoxb-1" {
		t.Errorf("StaticToken refreshed = %q", got)
	}
}

// A revoked token (token_revoked) is read again too: the message is
// updated once with the new token.
func TestTokenPosterRereadsARevokedToken(t *testing.T) {
	t.Parallel()
	fs, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	src := &storedToken{stored: fs.BotToken()}
	p, err := NewTokenPoster(context.Background(), src, func(token string) *Poster {
		return NewPoster(slack.New(token, slack.OptionAPIURL(fs.APIURL())))
	})
	if err != nil {
		t.Fatal(err)
	}
	a := workflowtest.SampleApproval()
	a.Channel = "C1"
	ch, ts, err := p.PostRequest(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	fs.RotateBotToken("xoxb-reissued")
	src.set("xoxb-reissued", nil)
	if _, err := p.Permalink(context.Background(), ch, ts); err != nil || src.count() != 2 {
		t.Errorf("Permalink after the token was revoked = %v after %d reads; want it answered with the new token, read once more", err, src.count())
	}
}
