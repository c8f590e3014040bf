package slackbot

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/chat"
)

// workspace knows the workspace's URL, such as "https://acme.slack.com/",
// which message links start with. It asks auth.test (Slack allows hundreds
// of calls a minute) once per process: links are then built without a call
// per message, where chat.getPermalink would need one for each listed
// approval.
type workspace struct {
	api *slack.Client
	url atomic.Pointer[string]
}

// load asks auth.test until it answers, waiting base, 2×base … up to max
// (with jitter) between failed tries, or until ctx is done. A refused token
// ends it at once. It returns the last answer's error: nil once the URL
// is known, Slack's refusal of the token, or ctx's error.
func (w *workspace) load(ctx context.Context, timeout, base, max time.Duration, log *zap.Logger) error {
	delay := base
	for attempt := 1; ; attempt++ {
		_, err := w.fetch(ctx, timeout)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case permanent(err):
			log.Warn("workspace URL unknown: slack refused the bot token; /approvals pending lists no links", zap.Error(err))
			return err
		}
		log.Warn("workspace URL not known yet; retrying", zap.Int("attempt", attempt), zap.Duration("backoff", delay), zap.Error(err))
		t := time.NewTimer(time.Duration(float64(delay) * (0.5 + rand.Float64()/2)))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, max)
	}
}

// base returns the workspace URL, asking Slack now when it is not known yet;
// "" when Slack does not answer within timeout.
func (w *workspace) base(ctx context.Context, timeout time.Duration) string {
	if u := w.url.Load(); u != nil {
		return *u
	}
	u, _ := w.fetch(ctx, timeout)
	return u
}

func (w *workspace) fetch(ctx context.Context, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := w.api.AuthTestContext(ctx)
	if err != nil {
		return "", chat.NewAPIError("auth.test", err)
	}
	u, err := workspaceURL(resp.URL)
	if err != nil {
		return "", err
	}
	w.url.Store(&u)
	return u, nil
}

// workspaceURL checks auth.test's url: an http(s) URL that can sit inside
// a mrkdwn link.
func workspaceURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(s, "|<> ") {
		return "", fmt.Errorf("slack auth.test: workspace url %q is not an http(s) URL", s)
	}
	return s, nil
}

// permanent reports whether Slack refused the token itself.
func permanent(err error) bool {
	switch chat.Code(err) {
	case "invalid_auth", "not_authed", "token_revoked", "account_inactive":
		return true
	}
	return false
}
