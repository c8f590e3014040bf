package slackbot

import (
	"context"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow"
)

// homes publishes people's App Home tabs (views.publish). A Home is
// published when its person opens it (app_home_opened), after they act on
// it (with the answer as a notice), and for a delegate when a request is
// handed to them. Requests for the same person coalesce into one publish
// that reads the store when it runs, so a burst of changes costs one call.
// views.publish (Tier 4, 100+ a minute) goes through its own pacer: a 429
// pauses every publish of the replica for its Retry-After, and the publish
// is repeated. Another failure is logged; the Home is published again the
// next time its person opens it.
type homes struct {
	api       *slack.Client
	approvals Approvals
	site      *workspace
	log       *zap.Logger
	cfg       Config
	pace      *pacing.Pacer

	mu       sync.Mutex
	notices  map[string]string // person → notice of the publish due; "" for none
	queue    []string
	signal   chan struct{}
	stopping bool
}

func newHomes(api *slack.Client, approvals Approvals, site *workspace, cfg Config, log *zap.Logger) *homes {
	return &homes{api: api, approvals: approvals, site: site, log: log, cfg: cfg, pace: pacing.New(pacing.Rate{}),
		notices: map[string]string{}, signal: make(chan struct{})}
}

// homeWorkers publish Homes at once.
const homeWorkers = 2

// publish asks for user's Home to be published, with notice (mrkdwn) on
// top when not "". A publish already due keeps its place; a notice
// replaces an older one.
func (h *homes) publish(user, notice string) {
	if !workflow.IsUserID(user) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopping {
		return
	}
	if old, due := h.notices[user]; due {
		if notice == "" {
			notice = old
		}
		h.notices[user] = notice
		return
	}
	h.notices[user] = notice
	h.queue = append(h.queue, user)
	close(h.signal)
	h.signal = make(chan struct{})
}

// stop makes the workers return once nothing is due.
func (h *homes) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopping = true
	close(h.signal)
	h.signal = make(chan struct{})
}

// run publishes until stop and an empty queue, or until ctx is done.
func (h *homes) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range homeWorkers {
		wg.Go(func() {
			for {
				user, notice, ok := h.next(ctx)
				if !ok {
					return
				}
				h.publishNow(ctx, user, notice)
			}
		})
	}
	wg.Wait()
}

func (h *homes) next(ctx context.Context) (user, notice string, ok bool) {
	for {
		h.mu.Lock()
		if len(h.queue) > 0 {
			user = h.queue[0]
			h.queue = h.queue[1:]
			notice = h.notices[user]
			delete(h.notices, user)
			h.mu.Unlock()
			return user, notice, true
		}
		stopping, signal := h.stopping, h.signal
		h.mu.Unlock()
		if stopping || ctx.Err() != nil {
			return "", "", false
		}
		select {
		case <-ctx.Done():
			return "", "", false
		case <-signal:
		}
	}
}

// publishNow reads what user may decide and has decided, and publishes it.
func (h *homes) publishNow(ctx context.Context, user, notice string) {
	log := h.log.With(zap.String("slack_user", user))
	home := h.read(ctx, user, log)
	home.Notice = notice
	view := blocks.HomeView(home)
	for {
		sent, err := h.pace.Wait(ctx)
		if err != nil {
			return
		}
		callCtx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
		_, err = h.api.PublishViewContext(callCtx, slack.PublishViewContextRequest{UserID: user, View: view})
		cancel()
		if d, limited := h.pace.Done(sent, err); limited {
			log.Info("Slack rate limits views.publish; every App Home waits", zap.Duration("retry_after", d))
			continue
		}
		if err != nil {
			log.Warn("App Home not published", zap.Error(chat.NewAPIError("views.publish", err)))
		}
		return
	}
}

// read gathers user's Home: the approvals they may decide, read whole (the
// buttons need the drafts and the policy), and their history.
func (h *homes) read(ctx context.Context, user string, log *zap.Logger) blocks.Home {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
	defer cancel()
	home := blocks.Home{User: user, Now: time.Now(), Base: h.site.base(ctx, h.cfg.CallTimeout), Locale: h.cfg.Locale}
	pending, err := h.approvals.PendingFor(ctx, user, 1000)
	if err != nil {
		log.Warn("pending approvals not listed for the App Home", zap.Error(chat.Redacted(err)))
		home.PendingUnavailable = true
	}
	for i, l := range pending {
		if len(home.Pending) == blocks.MaxHomePending {
			home.More = len(pending) - i
			break
		}
		a, err := h.approvals.Get(ctx, l.ID)
		switch {
		case workflow.ErrorCode(err) == workflow.ENOTFOUND:
		case err != nil:
			log.Warn("approval not read for the App Home", zap.String("approval_id", l.ID), zap.Error(chat.Redacted(err)))
			home.More++
		case a.Status == workflow.StatusPending:
			home.Pending = append(home.Pending, a)
		}
	}
	home.Requested, home.RequestedUnavailable = h.requested(ctx, user, log)
	if home.History, err = h.approvals.DecidedBy(ctx, user, blocks.MaxHomeHistory); err != nil {
		log.Warn("history not read for the App Home", zap.Error(chat.Redacted(err)))
		home.HistoryUnavailable = true
	}
	return home
}

// requested reads the open requests user asked for, whole (their
// Withdraw buttons need the request's confirm), and reports whether they
// could not be listed.
func (h *homes) requested(ctx context.Context, user string, log *zap.Logger) ([]workflow.Approval, bool) {
	listed, err := h.approvals.RequestedBy(ctx, user, blocks.MaxHomePending)
	if err != nil {
		log.Warn("open requests not listed for the App Home", zap.Error(chat.Redacted(err)))
		return nil, true
	}
	var out []workflow.Approval
	for _, l := range listed {
		a, err := h.approvals.Get(ctx, l.ID)
		switch {
		case workflow.ErrorCode(err) == workflow.ENOTFOUND:
		case err != nil:
			log.Warn("request not read for the App Home", zap.String("approval_id", l.ID), zap.Error(chat.Redacted(err)))
			out = append(out, l)
		case a.Status == workflow.StatusPending:
			out = append(out, a)
		}
	}
	return out, false
}
