package slackbot

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
)

// Config tunes the bot. Zero fields take the values of DefaultConfig.
type Config struct {
	// Workers bounds the clicks, submissions and commands handled at once,
	// and, on claimWorkers times as many goroutines of their own each, the
	// decisions being recorded at once and the recorded ones being resumed
	// at once.
	// A click or submission that decides is acked once its decision is
	// recorded in the store (claimed, or a vote counted), so that an
	// acknowledged decision survives the replica; every other ack waits for
	// nothing.
	Workers int
	// ShutdownTimeout bounds how long Run lets in-flight work and queued
	// message updates finish after its context is cancelled. Clicks,
	// submissions and commands not done when a reserve (a quarter of it, at
	// most 2 s) is left are stopped, and the people behind them are told
	// privately within the reserve.
	ShutdownTimeout time.Duration
	// AckTimeout bounds the sending of one ack.
	AckTimeout time.Duration
	// CallTimeout bounds each call to Slack or to Approvals.
	CallTimeout time.Duration

	// SweepInterval is how often (±25%) stale claims are recovered, overdue
	// approvals expired and unsynced messages updated.
	SweepInterval time.Duration
	// SweepGrace leaves approvals closed this recently to the replica that
	// decided them (and posts their thread reply).
	SweepGrace time.Duration

	// UpdateRate, if set, is a ceiling this replica's chat.update calls
	// never exceed. Below it the pace follows Slack's answers: unpaced
	// until a 429, then just below the rate Slack accepted (see pacer).
	// Zero: no ceiling.
	UpdateRate pacing.Rate
	// ReplyRate is the ceiling of thread replies (chat.postMessage) per
	// channel; below it they are paced by Slack's answers like updates.
	ReplyRate pacing.Rate
	// UpdateWorkers is how many message updates run at once.
	UpdateWorkers int
	// RetryBase and RetryMax shape the backoff of failed updates and of
	// the workspace URL lookup at start; UpdateAttempts bounds the tries of
	// an update before the sweeper takes over.
	RetryBase      time.Duration
	RetryMax       time.Duration
	UpdateAttempts int

	// PingInterval is how long the Socket Mode client waits for Slack's
	// ping before it reconnects (socketmode.OptionPingInterval); 0 keeps
	// slack-go's default of 30 s.
	PingInterval time.Duration
	// Command is the slash command's name, for the help text.
	Command string
	// Locale is the language of what the bot writes outside a request
	// (workflow.Locales; "" is blocks.DefaultLocale): /approvals, the App
	// Home, answers before a request is read. A request's own texts are
	// in its locale.
	Locale string

	// ReadyWindow is how long the Socket Mode connection may be down, or
	// DynamoDB unanswered, before Ready reports the replica not ready.
	ReadyWindow time.Duration
	// ProbeInterval is how often the store is probed for Ready (one
	// GetItem of a key no approval has).
	ProbeInterval time.Duration
	// TokenCheckInterval is how often Slack is asked whether it still
	// accepts the bot token (one auth.test), for Ready.
	TokenCheckInterval time.Duration
	// Metrics receives what the bot does; nil records nothing. One Metrics
	// serves one Bot.
	Metrics *Metrics
}

// DefaultConfig returns the production settings.
func DefaultConfig() Config {
	return Config{
		Workers:            16,
		ShutdownTimeout:    8 * time.Second,
		AckTimeout:         2 * time.Second,
		CallTimeout:        10 * time.Second,
		SweepInterval:      30 * time.Second,
		SweepGrace:         20 * time.Second,
		ReplyRate:          pacing.Rate{Events: 1, Per: time.Second, Burst: 3},
		UpdateWorkers:      4,
		RetryBase:          time.Second,
		RetryMax:           time.Minute,
		UpdateAttempts:     8,
		Command:            "/approvals",
		ReadyWindow:        60 * time.Second,
		ProbeInterval:      10 * time.Second,
		TokenCheckInterval: time.Minute,
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	set := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	if c.Workers <= 0 {
		c.Workers = d.Workers
	}
	if c.UpdateWorkers <= 0 {
		c.UpdateWorkers = d.UpdateWorkers
	}
	if c.UpdateAttempts <= 0 {
		c.UpdateAttempts = d.UpdateAttempts
	}
	set(&c.ShutdownTimeout, d.ShutdownTimeout)
	set(&c.AckTimeout, d.AckTimeout)
	set(&c.CallTimeout, d.CallTimeout)
	set(&c.SweepInterval, d.SweepInterval)
	set(&c.RetryBase, d.RetryBase)
	set(&c.RetryMax, d.RetryMax)
	set(&c.ReadyWindow, d.ReadyWindow)
	set(&c.ProbeInterval, d.ProbeInterval)
	set(&c.TokenCheckInterval, d.TokenCheckInterval)
	if c.SweepGrace < 0 {
		c.SweepGrace = 0
	}
	if c.ReplyRate.Events <= 0 {
		c.ReplyRate = d.ReplyRate
	}
	if c.Command == "" {
		c.Command = d.Command
	}
	return c
}

// claimWorkers is how many decisions are recorded at once per worker
// (Config.Workers), and how many recorded decisions are resumed at once:
// recording one is a read and a write, time spent waiting on the store,
// and its ack waits for it; resuming one is a Step Functions call and the
// write of its outcome. The store groups the reads and writes that wait
// (dynamo.Store), so many at once cost few calls and connections, not one
// each; on Workers goroutines, a burst's resumes waited on the outcome
// writes of the ones before them.
const claimWorkers = 8

// Bot is the Socket Mode app. Any number of replicas may run against one
// Slack app and one store: any of them handles any click.
type Bot struct {
	cfg        Config
	approvals  Approvals
	api        *slack.Client
	log        *zap.Logger
	pool       *pool
	claims     *pool // decisions to record, then ack (see Config.Workers)
	resumes    *pool // recorded decisions to resume (see claimWorkers)
	updates    *updater
	homes      *homes
	ephemerals *pacing.Pacer // chat.postEphemeral
	site       workspace
	sm         *socketmode.Client
	started    atomic.Bool
	health     health
	metrics    *Metrics
	// arrived is when the envelope being routed reached the event loop;
	// only the event loop uses it.
	arrived time.Time
}

// New returns a Bot. api must carry the app-level token
// (slack.OptionAppLevelToken) and should use NewHTTPClient.
func New(cfg Config, approvals Approvals, api *slack.Client, logger *zap.Logger) *Bot {
	if logger == nil {
		logger = zap.NewNop()
	}
	cfg = cfg.withDefaults()
	b := &Bot{cfg: cfg, approvals: approvals, api: api, log: logger, site: workspace{api: api}, metrics: cfg.Metrics}
	b.health = health{window: cfg.ReadyWindow, now: time.Now}
	b.pool = newPool(func(r any) { b.log.Error("handler panicked", zap.Any("panic", r)) })
	b.claims = newPool(func(r any) { b.log.Error("handler panicked", zap.Any("panic", r)) })
	b.resumes = newPool(func(r any) { b.log.Error("handler panicked", zap.Any("panic", r)) })
	b.updates = newUpdater(api, approvals, cfg, logger)
	b.homes = newHomes(api, approvals, &b.site, cfg, logger)
	b.ephemerals = pacing.New(pacing.Rate{})
	b.metrics.attach(b)
	return b
}

// Run connects to Slack and serves until ctx is cancelled or the tokens
// are refused. On cancel it stops taking envelopes, lets acknowledged work
// and queued message updates finish within Config.ShutdownTimeout (telling
// people privately about work it had to leave undone), and returns nil. A
// refused token (invalid_auth, token_revoked, …) returns an error. Run may
// be called once.
func (b *Bot) Run(ctx context.Context) error {
	if !b.started.CompareAndSwap(false, true) {
		return errors.New("slackbot: Run called twice")
	}
	opts := []socketmode.Option{socketmode.OptionLog(zap.NewStdLog(b.log.Named("socketmode")))}
	if b.cfg.PingInterval > 0 {
		opts = append(opts, socketmode.OptionPingInterval(b.cfg.PingInterval))
	}
	b.sm = socketmode.New(b.api, opts...)

	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	outbox, stopOutbox := context.WithCancel(context.WithoutCancel(ctx))
	defer stopOutbox()
	poolDone := b.pool.run(work, b.cfg.Workers)
	claimsDone := b.claims.run(work, claimWorkers*b.cfg.Workers)
	resumesDone := b.resumes.run(work, claimWorkers*b.cfg.Workers)
	updatesDone := make(chan struct{})
	go func() { defer close(updatesDone); b.updates.run(outbox) }()
	homesDone := make(chan struct{})
	go func() { defer close(homesDone); b.homes.run(outbox) }()
	sweepCtx, stopSweep := context.WithCancel(ctx)
	defer stopSweep()
	sweepDone := make(chan struct{})
	go func() { defer close(sweepDone); b.sweep(sweepCtx) }()
	siteDone := make(chan struct{})
	go func() {
		defer close(siteDone)
		if err := b.site.load(sweepCtx, b.cfg.CallTimeout, b.cfg.RetryBase, b.cfg.RetryMax, b.log); sweepCtx.Err() == nil {
			b.tokenAnswered(err)
		}
	}()
	b.health.start()
	watchDone := make(chan struct{})
	go func() { defer close(watchDone); b.watch(sweepCtx) }()

	socketCtx, stopSocket := context.WithCancel(ctx)
	defer stopSocket()
	socketDone := make(chan error, 1)
	go func() { socketDone <- b.sm.RunContext(socketCtx) }()

	b.log.Info("slack bot starting", zap.Int("workers", b.cfg.Workers))
	stopped, err := b.loop(ctx, socketDone)
	b.health.stop()
	stopSocket()
	var missed []job
	if !stopped {
		missed = b.drain(socketDone)
	}

	reserve := answerReserve(b.cfg.ShutdownTimeout)
	workDeadline := time.AfterFunc(b.cfg.ShutdownTimeout-reserve, stopWork)
	defer workDeadline.Stop()
	outboxDeadline := time.AfterFunc(b.cfg.ShutdownTimeout, stopOutbox)
	defer outboxDeadline.Stop()
	stopSweep()
	<-sweepDone
	<-siteDone
	<-watchDone
	// A decision recorded by a claim (or by a submission, on the pool)
	// queues its resume: the resumes close last.
	b.claims.close()
	<-claimsDone
	b.pool.close()
	<-poolDone
	b.resumes.close()
	<-resumesDone
	b.answerLeftovers(reserve, missed)
	b.updates.stop()
	b.homes.stop()
	<-updatesDone
	<-homesDone
	b.log.Info("slack bot stopped")
	return err
}

// loop routes events until ctx is done or the socket gives up for good.
// stopped reports whether the socket has returned.
func (b *Bot) loop(ctx context.Context, socketDone <-chan error) (stopped bool, err error) {
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case err := <-socketDone:
			if ctx.Err() != nil {
				return true, nil
			}
			if err == nil {
				err = errors.New("socket mode client stopped")
			}
			b.log.Error("slack refused the connection; stopping", zap.Error(chat.Redacted(err)), zap.String("alert", alertSlackAuth))
			return true, fmt.Errorf("socket mode: %w", chat.Redacted(err))
		case ev := <-b.sm.Events:
			b.route(ev)
		}
	}
}

// drain keeps the event channel moving until the socket has closed. The
// envelopes still there cannot be acked any more (Slack shows the person an
// error); the clicks and commands among them are returned, to be answered
// like the work shutdown leaves undone.
func (b *Bot) drain(socketDone <-chan error) []job {
	var missed []job
	take := func(ev socketmode.Event) {
		if ev.Request == nil || ev.Request.EnvelopeID == "" {
			return
		}
		b.log.Warn("envelope not acknowledged at shutdown", zap.String("envelope_id", ev.Request.EnvelopeID))
		if j, ok := b.unacked(ev); ok {
			missed = append(missed, j)
		}
	}
	for {
		select {
		case <-socketDone:
			for {
				select {
				case ev := <-b.sm.Events:
					take(ev)
				default:
					return missed
				}
			}
		case ev := <-b.sm.Events:
			take(ev)
		}
	}
}

// ack acknowledges an envelope without ever blocking for long. Only the
// event loop calls it.
func (b *Bot) ack(envelopeID string, payload any) {
	if envelopeID == "" {
		return
	}
	b.ackSince(envelopeID, payload, b.arrived)
}

// ackSince acks an envelope that reached the event loop at arrived; the
// pool acks with it the submissions it checks with Slack first.
func (b *Bot) ackSince(envelopeID string, payload any, arrived time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.AckTimeout)
	defer cancel()
	err := b.sm.AckCtx(ctx, envelopeID, payload)
	b.metrics.acked(arrived, err)
	if err != nil {
		b.log.Warn("ack not sent", zap.String("envelope_id", envelopeID), zap.Error(chat.Redacted(err)))
	}
}

// UpdatePace is this replica's current pace of chat.update calls, in calls
// per second: +Inf (or the UpdateRate ceiling) while Slack has not limited
// it, 0 while a 429's Retry-After holds every update back. Safe to call at
// any time, for a metrics gauge.
func (b *Bot) UpdatePace() float64 { return b.updates.updates.Rate() }
