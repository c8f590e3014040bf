package slackbot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// Alerts are the values of the "alert" key on the log lines that
// deploy/cloudformation.yaml counts with CloudWatch metric filters. They
// are part of the operating contract: change them only with the template.
const (
	alertSlackAuth     = "slack_auth_refused"  // Slack refused a token
	alertNotReady      = "bot_not_ready"       // the replica is not ready (repeated while it lasts)
	alertExpired       = "approval_expired"    // approvals closed unanswered past their deadline
	alertMessageGaveUp = "message_not_updated" // a request message will keep its buttons
)

// probeID is the approval the store probe reads: no approval has it (IDs
// start with "ap_"), so a healthy store answers ENOTFOUND.
const probeID = "readiness-probe"

// health knows whether the replica can do its work: its Socket Mode
// connection was up, and the store answered, within the last window.
type health struct {
	window time.Duration
	now    func() time.Time

	mu        sync.Mutex
	started   time.Time // zero until Run starts
	stopping  bool
	up        bool      // hello received and no reconnect since
	everUp    bool      // a hello was ever received
	lostAt    time.Time // when the connection was last lost
	storeOK   time.Time // the last probe the store answered
	storeSeen bool      // a probe has finished
	// refused is Slack's code when it last refused the bot token
	// (invalid_auth, token_revoked, account_inactive, …), else "".
	refused string
	// reported is what the watcher last logged: nil while ready.
	reported  error
	lastAlert time.Time
}

func (h *health) start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.started = h.now()
}

func (h *health) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopping = true
}

// hello records that Slack greeted a new connection.
func (h *health) hello() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.up, h.everUp = true, true
}

// lost records that the connection is gone (a reconnect started or failed).
func (h *health) lost() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.up {
		h.up, h.lostAt = false, h.now()
	}
}

func (h *health) socketUp() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.up
}

// probed records the outcome of a store probe.
func (h *health) probed(ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.storeSeen = true
	if ok {
		h.storeOK = h.now()
	}
}

// check is nil when the replica is ready, or an error saying why not. Its
// text names no secret and no infrastructure detail.
func (h *health) check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	since := func(t time.Time) time.Duration { return now.Sub(t).Round(time.Second) }
	switch {
	case h.started.IsZero():
		return errors.New("not started")
	case h.stopping:
		return errors.New("shutting down")
	case h.refused != "":
		return fmt.Errorf("the bot token is refused by Slack (%s)", h.refused)
	case !h.everUp:
		return errors.New("not connected to Slack yet")
	case !h.up && now.Sub(h.lostAt) > h.window:
		return fmt.Errorf("connection to Slack lost %s ago", since(h.lostAt))
	case !h.storeSeen:
		return errors.New("DynamoDB not checked yet")
	case h.storeOK.IsZero():
		return errors.New("DynamoDB has not answered since the start")
	case now.Sub(h.storeOK) > h.window:
		return fmt.Errorf("DynamoDB has not answered for %s", since(h.storeOK))
	}
	return nil
}

// Ready reports whether the replica can serve: nil when Slack accepted the
// bot token at its last check, the Socket Mode connection was up (hello
// received) and DynamoDB answered a probe within Config.ReadyWindow,
// otherwise an error whose text says why, fit to show
// (no token, no address). A replica is not ready before Run has connected,
// nor once it is shutting down. Safe for concurrent use; it does no I/O.
func (b *Bot) Ready() error { return b.health.check() }

// watch probes the store every ProbeInterval and asks Slack about the bot
// token every TokenCheckInterval (the workspace's auth.test at start is
// the first check) until ctx is done, and logs readiness changes:
// "replica ready" once ready, and while not ready (once it has had
// ReadyWindow to get ready) a warning with alert bot_not_ready, repeated
// every minute.
func (b *Bot) watch(ctx context.Context) {
	t := time.NewTicker(b.cfg.ProbeInterval)
	defer t.Stop()
	lastTokenCheck := time.Now()
	for {
		b.probe(ctx)
		if time.Since(lastTokenCheck) >= b.cfg.TokenCheckInterval {
			b.checkToken(ctx)
			lastTokenCheck = time.Now()
		}
		if ctx.Err() != nil {
			return
		}
		b.reportReadiness()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// probe reads the probe key through the store: an answer, found or not,
// means the store is reachable.
func (b *Bot) probe(ctx context.Context) {
	callCtx, cancel := context.WithTimeout(ctx, min(b.cfg.CallTimeout, b.cfg.ProbeInterval))
	defer cancel()
	_, err := b.approvals.Get(callCtx, probeID)
	if ctx.Err() != nil {
		return // shutting down: says nothing about the store
	}
	ok := err == nil || workflow.ErrorCode(err) == workflow.ENOTFOUND
	if !ok {
		b.log.Debug("store probe failed", zap.Error(chat.Redacted(err)))
	}
	b.health.probed(ok)
}

// checkToken asks Slack whether it still accepts the bot token (auth.test,
// which Slack allows hundreds of times a minute).
func (b *Bot) checkToken(ctx context.Context) {
	callCtx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	_, err := b.api.AuthTestContext(callCtx)
	if ctx.Err() != nil {
		return
	}
	b.tokenAnswered(chat.NewAPIError("auth.test", err))
}

// tokenAnswered records what Slack's answer to a call with the bot token
// (err, nil when it succeeded) says of the token. Only Slack's refusal of
// the token itself makes the replica not ready, and that is logged once,
// as it happens, with alert slack_auth_refused; an unanswered call says
// nothing.
func (b *Bot) tokenAnswered(err error) {
	refused := ""
	switch {
	case err == nil:
	case permanent(err):
		refused = chat.Code(err)
	default:
		b.log.Debug("bot token check unanswered", zap.Error(err))
		return
	}
	h := &b.health
	h.mu.Lock()
	was := h.refused
	h.refused = refused
	h.mu.Unlock()
	switch {
	case refused != "" && was == "":
		b.log.Error("slack refuses the bot token; the replica is not ready until it accepts it again",
			zap.String("code", refused), zap.String("alert", alertSlackAuth))
	case refused == "" && was != "":
		b.log.Info("slack accepts the bot token again")
	}
}

// notReadyRepeat is how often a replica that stays not ready logs it again.
const notReadyRepeat = time.Minute

func (b *Bot) reportReadiness() {
	err := b.health.check()
	h := &b.health
	h.mu.Lock()
	now, started, stopping := h.now(), h.started, h.stopping
	was, last := h.reported, h.lastAlert
	h.mu.Unlock()
	if stopping {
		return
	}
	switch {
	case err == nil && (was != nil || last.IsZero()):
		b.log.Info("replica ready")
		h.mu.Lock()
		h.reported, h.lastAlert = nil, now
		h.mu.Unlock()
	case err != nil && now.Sub(started) >= b.cfg.ReadyWindow && (was == nil || now.Sub(last) >= notReadyRepeat):
		b.log.Warn("replica not ready", zap.String("reason", err.Error()), zap.String("alert", alertNotReady))
		h.mu.Lock()
		h.reported, h.lastAlert = err, now
		h.mu.Unlock()
	}
}
