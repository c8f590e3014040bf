package slackbot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

// quickHealth makes readiness react within a fraction of a second.
func quickHealth() Config {
	cfg := testConfig()
	cfg.ReadyWindow = 300 * time.Millisecond
	cfg.ProbeInterval = 30 * time.Millisecond
	return cfg
}

func (h *harness) waitReady(b *Bot, want string) {
	h.t.Helper()
	h.waitFor("readiness: "+want, func() bool {
		err := b.Ready()
		if want == "" {
			return err == nil
		}
		return err != nil && strings.Contains(err.Error(), want)
	})
}

func TestReadyFollowsTheSocket(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rb := h.startBot(quickHealth(), nil)
	h.waitReady(rb.bot, "")

	// Slack drops the socket and refuses new ones: ready for the window,
	// then not ready, with one alert line.
	h.slack.RefuseConnections(fakeslack.ReasonLinkDisabled)
	h.slack.Disconnect(fakeslack.ReasonRefreshRequested)
	h.waitReady(rb.bot, "connection to Slack lost")
	h.waitFor("the alert line", func() bool {
		return h.logs.FilterMessage("replica not ready").FilterField(zap.String("alert", alertNotReady)).Len() == 1
	})

	h.slack.RefuseConnections("")
	h.waitReady(rb.bot, "")
	h.waitFor("ready logged again", func() bool { return h.logs.FilterMessage("replica ready").Len() == 2 })
}

func TestReadyFollowsTheStore(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rb := h.startBot(quickHealth(), nil)
	h.waitReady(rb.bot, "")

	h.store.SetErr(errors.New("dial tcp 10.0.0.1:443: connect: connection refused"))
	h.waitReady(rb.bot, "DynamoDB has not answered for")
	if err := rb.bot.Ready(); strings.Contains(err.Error(), "10.0.0.1") {
		t.Errorf("Ready() = %q shows the store's error", err)
	}
	h.store.SetErr(nil)
	h.waitReady(rb.bot, "")
}

func TestNotReadyBeforeStartAndWhileStopping(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	b := New(quickHealth(), h.svc, h.api(nil), h.log)
	if err := b.Ready(); err == nil || err.Error() != "not started" {
		t.Errorf("before Run: Ready() = %v", err)
	}
	h.slack.RefuseConnections(fakeslack.ReasonLinkDisabled) // never greeted
	rb := h.startBotWith(quickHealth(), h.svc, h.api(nil))
	h.waitReady(rb.bot, "not connected to Slack yet")
	h.waitFor("the alert line", func() bool { return h.logs.FilterMessage("replica not ready").Len() >= 1 })
	if err := rb.stop(t); err != nil {
		t.Fatal(err)
	}
	if err := rb.bot.Ready(); err == nil || err.Error() != "shutting down" {
		t.Errorf("after Run: Ready() = %v", err)
	}
}

// The store probe is a read of a key no approval has, never more often
// than ProbeInterval, whoever asks Ready.
func TestStoreProbeIsCheapAndPaced(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	counting := &countingGets{Approvals: h.svc}
	cfg := testConfig()
	cfg.ProbeInterval = time.Hour
	rb := h.startBot(cfg, counting)
	h.waitReady(rb.bot, "")
	for range 100 {
		_ = rb.bot.Ready()
	}
	if got := counting.probes(); got != 1 {
		t.Errorf("%d probes, want 1 (at start)", got)
	}
}

type countingGets struct {
	Approvals
	mu sync.Mutex
	n  int
}

func (c *countingGets) Get(ctx context.Context, id string) (workflow.Approval, error) {
	if id == probeID {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
	return c.Approvals.Get(ctx, id)
}

func (c *countingGets) probes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// When Slack stops accepting the bot token (revoked, rotated, the
// workspace gone), the replica turns not ready and says why once; once
// Slack accepts a token again it is ready again.
func TestReadyFollowsTheBotToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cfg := quickHealth()
	cfg.TokenCheckInterval = 50 * time.Millisecond
	rb := h.startBot(cfg, nil)
	h.waitReady(rb.bot, "")
	if n := h.logs.FilterField(zap.String("alert", alertSlackAuth)).Len(); n != 0 {
		t.Fatalf("%d slack_auth_refused lines while Slack accepts the token", n)
	}

	old := h.slack.BotToken()
	h.slack.RotateBotToken("xoxb-rotated-elsewhere")
	h.waitReady(rb.bot, "the bot token is refused by Slack (token_revoked)")
	if err := rb.bot.Ready(); strings.Contains(err.Error(), old) || strings.Contains(err.Error(), "xoxb-") {
		t.Errorf("Ready() = %q shows a token", err)
	}
	h.waitFor("several checks", func() bool { return h.slack.Calls("auth.test") >= 5 })
	refused := h.logs.FilterMessage("slack refuses the bot token; the replica is not ready until it accepts it again")
	if n := refused.FilterField(zap.String("alert", alertSlackAuth)).Len(); n != 1 {
		t.Errorf("%d alert lines for one refusal, want 1", n)
	}
	if refused.Len() == 1 && refused.All()[0].ContextMap()["code"] != "token_revoked" {
		t.Errorf("the line says %v, want code token_revoked", refused.All()[0].ContextMap())
	}

	h.slack.RotateBotToken(old) // the replica's token is accepted again
	h.waitReady(rb.bot, "")
	h.waitFor("recovery logged", func() bool { return h.logs.FilterMessage("slack accepts the bot token again").Len() == 1 })
}
