package slackbot

import (
	"context"
	"errors"
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
// it (with the answer as a notice), and whenever a request it lists, or
// should list, changes, for as long as its person watches it (opened it
// within workflow.WatchFor; every replica knows who, from the store):
//
//   - this replica's own changes (a decision, a vote, a hand-over, what
//     its sweep did) re-publish the Homes of the watchers they concern
//     (workflow.Service.Concerned) right away;
//   - changes made elsewhere that no replica saw (a new request from the
//     notifier, a request closed by the execution-events function) are
//     read from the audit trail every tailEvery, while somebody watches.
//
// Publishes for the same person coalesce into one that reads the store
// when it runs, and one person's Home is published at most once every
// homeEvery, so a burst of changes costs one call per person. views.publish
// (Tier 4, 100+ a minute) goes through its own pacer: a 429 pauses every
// publish of the replica for its Retry-After, and the publish is
// repeated. Another failure is logged; the Home is published again the
// next time it changes or its person opens it.
type homes struct {
	api       *slack.Client
	approvals Approvals
	site      *workspace
	log       *zap.Logger
	cfg       Config
	pace      *pacing.Pacer
	now       func() time.Time

	mu       sync.Mutex
	due      map[string]homeDue // person → the publish due
	queue    []string
	last     map[string]time.Time // person → when their Home was last published
	changed  []workflow.Approval  // changes whose watchers' Homes are to be re-published
	moved    chan struct{}        // a change was added to changed (capacity 1)
	signal   chan struct{}
	stopping bool
	stopped  chan struct{} // closed by stop

	// watchers is who watches their Home, read from the store at most
	// every watchersEvery; local lists the approvals this replica changed
	// lately (their Homes are its to re-publish, not the audit tail's).
	watchers   map[string]bool
	watchersAt time.Time
	local      map[string]time.Time
}

// homeDue is a publish waiting in the queue.
type homeDue struct {
	notice string // mrkdwn on top of the Home; "" for none
	watch  bool   // the person opened their Home: record that they watch it
}

// Pace of the Homes kept up to date.
const (
	homeWorkers   = 2
	homeEvery     = 2 * time.Second  // one person's Home at most this often
	watchersEvery = 5 * time.Second  // who watches, read this often
	tailEvery     = 2 * time.Second  // changes made elsewhere, read this often
	tailOverlap   = 10 * time.Second // the audit trail's index may show an event this late
)

func newHomes(api *slack.Client, approvals Approvals, site *workspace, cfg Config, log *zap.Logger) *homes {
	return &homes{api: api, approvals: approvals, site: site, log: log, cfg: cfg, pace: pacing.New(pacing.Rate{}), now: time.Now,
		due: map[string]homeDue{}, last: map[string]time.Time{}, local: map[string]time.Time{}, moved: make(chan struct{}, 1), signal: make(chan struct{}), stopped: make(chan struct{})}
}

// publish asks for user's Home to be published, with notice (mrkdwn) on
// top when not "". A publish already due keeps its place; a notice
// replaces an older one.
func (h *homes) publish(user, notice string) { h.enqueue(user, homeDue{notice: notice}) }

// opened publishes user's Home, which they just opened, and records that
// they watch it.
func (h *homes) opened(user string) { h.enqueue(user, homeDue{watch: true}) }

func (h *homes) enqueue(user string, d homeDue) {
	if !workflow.IsUserID(user) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopping {
		return
	}
	if old, due := h.due[user]; due {
		if d.notice == "" {
			d.notice = old.notice
		}
		d.watch = d.watch || old.watch
		h.due[user] = d
		return
	}
	h.due[user] = d
	h.queue = append(h.queue, user)
	h.wake()
}

// refresh asks for the Homes of the watchers a concerns to be published
// again: a changed here. While nobody watches (as read lately), it costs
// nothing more.
func (h *homes) refresh(a workflow.Approval) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	if h.stopping || (h.watchers != nil && len(h.watchers) == 0 && now.Sub(h.watchersAt) < watchersEvery) {
		return
	}
	h.local[a.ID] = now
	h.changed = append(h.changed, a)
	select {
	case h.moved <- struct{}{}:
	default:
	}
}

func (h *homes) wake() {
	close(h.signal)
	h.signal = make(chan struct{})
}

// stop makes the workers return once nothing is due.
func (h *homes) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.stopping {
		close(h.stopped)
	}
	h.stopping = true
	h.wake()
}

// run publishes until stop and an empty queue, or until ctx is done, and
// reads the changes made elsewhere until ctx is done or stop.
func (h *homes) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range homeWorkers {
		wg.Go(func() {
			for {
				user, d, ok := h.next(ctx)
				if !ok {
					return
				}
				h.publishNow(ctx, user, d)
			}
		})
	}
	wg.Go(func() {
		for {
			changed, ok := h.nextChanged(ctx)
			if !ok {
				return
			}
			h.refreshNow(ctx, changed)
		}
	})
	wg.Go(func() { h.tail(ctx) })
	wg.Wait()
}

// next returns the next person whose Home is due and whose last publish
// is homeEvery ago, waiting for one.
func (h *homes) next(ctx context.Context) (string, homeDue, bool) {
	for {
		h.mu.Lock()
		now := h.now()
		wait := time.Duration(-1)
		for i, user := range h.queue {
			ready := h.last[user].Add(homeEvery)
			if !now.Before(ready) || h.due[user].notice != "" || h.due[user].watch {
				h.queue = append(h.queue[:i:i], h.queue[i+1:]...)
				d := h.due[user]
				delete(h.due, user)
				h.last[user] = now
				for u, at := range h.last {
					if now.Sub(at) >= homeEvery && len(h.last) > 100 {
						delete(h.last, u) // no longer holds anything back
					}
				}
				h.mu.Unlock()
				return user, d, true
			}
			if w := ready.Sub(now); wait < 0 || w < wait {
				wait = w
			}
		}
		stopping, signal := h.stopping, h.signal
		h.mu.Unlock()
		if (stopping && wait < 0) || ctx.Err() != nil {
			return "", homeDue{}, false
		}
		if wait < 0 {
			wait = time.Hour // nothing queued: wait for a signal
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", homeDue{}, false
		case <-signal:
		case <-t.C:
		}
		t.Stop()
	}
}

// nextChanged takes the approvals changed since the last call, waiting
// for one.
func (h *homes) nextChanged(ctx context.Context) ([]workflow.Approval, bool) {
	for {
		h.mu.Lock()
		if len(h.changed) > 0 {
			changed := h.changed
			h.changed = nil
			h.mu.Unlock()
			return changed, true
		}
		h.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, false
		case <-h.stopped:
			return nil, false
		case <-h.moved:
		}
	}
}

// refreshNow publishes the Homes of the watchers the changed approvals
// concern.
func (h *homes) refreshNow(ctx context.Context, changed []workflow.Approval) {
	watchers := h.watching(ctx)
	if len(watchers) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
	defer cancel()
	for _, a := range changed {
		for _, user := range h.approvals.Concerned(ctx, a) {
			if watchers[user] {
				h.publish(user, "")
			}
		}
	}
}

// watching returns who watches their Home, from the store at most every
// watchersEvery (the last answer while the store fails).
func (h *homes) watching(ctx context.Context) map[string]bool {
	h.mu.Lock()
	if h.now().Sub(h.watchersAt) < watchersEvery {
		w := h.watchers
		h.mu.Unlock()
		return w
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
	defer cancel()
	users, err := h.approvals.Watchers(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watchersAt = h.now()
	if err != nil {
		h.log.Warn("could not read who watches their App Home; trying again shortly", zap.Error(chat.Redacted(err)))
		return h.watchers
	}
	h.watchers = make(map[string]bool, len(users))
	for _, u := range users {
		h.watchers[u] = true
	}
	return h.watchers
}

// tail reads, every tailEvery while somebody watches their Home, the
// audit events of changes this replica did not make that a Home shows: a
// new request (whose approvers the event names) and a request closed
// without a decision (closed by the execution-events function, or by
// another process). Each event is handled once.
func (h *homes) tail(ctx context.Context) {
	seen := map[[2]any]time.Time{}
	since := h.now().UTC()
	t := time.NewTicker(tailEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.stopped:
			return
		case <-t.C:
		}
		if len(h.watching(ctx)) == 0 {
			since = h.now().UTC()
			continue
		}
		now := h.now().UTC()
		callCtx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
		var changed []workflow.Approval
		err := h.approvals.ExportAudit(callCtx, since.Add(-tailOverlap), now, func(e workflow.AuditEvent) error {
			k := [2]any{e.ApprovalID, e.Seq}
			if _, done := seen[k]; done {
				return nil
			}
			seen[k] = e.At
			switch e.Type {
			case workflow.EventRequested:
				changed = append(changed, workflow.Approval{ID: e.ApprovalID, Approvers: e.Users})
			case workflow.EventClosed:
				if !h.changedHere(e.ApprovalID) {
					if a, err := h.approvals.Get(callCtx, e.ApprovalID); err == nil {
						changed = append(changed, a)
					}
				}
			}
			return nil
		})
		cancel()
		if err != nil {
			h.log.Warn("could not read the changes to refresh App Homes with; trying again shortly", zap.Error(chat.Redacted(err)))
			continue
		}
		since = now
		for k, at := range seen {
			if at.Before(now.Add(-2 * tailOverlap)) {
				delete(seen, k)
			}
		}
		if len(changed) > 0 {
			h.refreshNow(ctx, changed)
		}
	}
}

// changedHere reports whether this replica changed the approval lately
// (and re-published its watchers' Homes itself).
func (h *homes) changedHere(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	for k, at := range h.local {
		if now.Sub(at) > 2*tailOverlap {
			delete(h.local, k)
		}
	}
	_, ok := h.local[id]
	return ok
}

// publishNow reads what user may decide and has decided, and publishes it.
func (h *homes) publishNow(ctx context.Context, user string, d homeDue) {
	log := h.log.With(zap.String("slack_user", user))
	if d.watch {
		watchCtx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
		if err := h.approvals.Watch(watchCtx, user); err != nil {
			log.Warn("could not record that the App Home is open; it is refreshed when opened again", zap.Error(chat.Redacted(err)))
		}
		cancel()
		h.mu.Lock()
		if h.watchers != nil && !h.watchers[user] {
			h.watchers = mapWith(h.watchers, user)
		}
		h.mu.Unlock()
	}
	home := h.read(ctx, user, log)
	home.Notice = d.notice
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

// mapWith is a copy of m with key set: watchers maps are shared read-only.
func mapWith(m map[string]bool, key string) map[string]bool {
	out := make(map[string]bool, len(m)+1)
	for k := range m {
		out[k] = true
	}
	out[key] = true
	return out
}

// read gathers user's Home: the approvals they may decide, whole (the
// buttons need the drafts and the policy), and their history.
func (h *homes) read(ctx context.Context, user string, log *zap.Logger) blocks.Home {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
	defer cancel()
	home := blocks.Home{User: user, Now: time.Now(), Base: h.site.base(ctx, h.cfg.CallTimeout), Locale: h.cfg.Locale}
	pending, err := h.approvals.PendingFor(ctx, user, 1000)
	var unchecked *workflow.UncheckedError
	switch {
	case errors.As(err, &unchecked):
		log.Warn("pending approvals of some user groups not listed for the App Home", zap.Strings("groups", unchecked.Groups), zap.Error(chat.Redacted(err)))
		home.PendingUnchecked = true
	case err != nil:
		log.Warn("pending approvals not listed for the App Home", zap.Error(chat.Redacted(err)))
		home.PendingUnavailable = true
	}
	home.Pending = pending[:min(len(pending), blocks.MaxHomePending)]
	home.More = len(pending) - len(home.Pending)
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
	return listed, false
}
