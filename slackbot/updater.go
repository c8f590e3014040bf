package slackbot

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow"
)

// updater is the outbox that makes request messages show their outcome. It
// never blocks a decision: handlers and the sweeper enqueue, a few workers
// call Slack. chat.update shares one pacer that follows Slack's answers (a
// 429 pauses every queued update; see pacer); thread replies have their own
// workers and a pacer per channel, so a busy channel's replies (about one a
// second) never hold back the message updates that take the buttons away.
//
// Guarantees:
//   - Every final approval's message is updated unless Slack keeps refusing:
//     a decision's failed update is retried a few times with capped
//     exponential backoff and jitter; then the failure is recorded on the
//     approval (workflow.Service.MessageFailed), which backs off per record,
//     and the sweeper tries again once it is due (once per try), until the
//     record gives up after workflow.MessageRetry.Attempts failures with one
//     warning. A message that keeps failing never holds back another.
//   - MessageSynced is recorded after a successful update, and also after a
//     permanent refusal (cant_update_message, message_not_found,
//     channel_not_found, is_archived, invalid_blocks…), which is logged, so
//     such an approval is not retried forever.
//   - The thread reply is posted at most once per decision, by the replica
//     that recorded the decision, only after its update succeeded. It is
//     retried only after a 429 (Slack did not post it). It is not posted for
//     expiries, for updates enqueued by the sweeper, or when the replica
//     stops between the update and the reply; the message itself still
//     shows the outcome.
//   - Enqueueing an approval that is already queued keeps one job with the
//     newest state; one that is being updated is not queued again.
//   - What is still queued or waiting for Slack's pace when run's context
//     ends (the shutdown bound) is left undone and counted in one warning
//     (see leftBehind).
type updater struct {
	api       *slack.Client
	approvals Approvals
	log       *zap.Logger
	cfg       Config
	updates   *pacing.Pacer
	replies   *pacing.Keyed

	mu         sync.Mutex
	jobs       map[string]*updateJob
	ready      []string // jobs whose message needs updating
	replyQueue []string // jobs whose message is updated and whose reply is due
	// refreshes and refreshQueue are the pending messages to show their
	// progress (see refresh); notes the bot's notes for request threads
	// (see notify).
	refreshes    map[string]*refreshJob
	refreshQueue []string
	notes        []note
	// told are the final approvals whose requester may be due their
	// notice (see tellRequester), apart from the updates so that the
	// notice never slows a message update.
	told     []workflow.Approval
	signal   chan struct{}
	stopping bool
	// runCtx is run's context: once it ends, work ends undone and stays
	// where leftBehind counts it (see cutShort).
	runCtx context.Context
}

type updateJob struct {
	a workflow.Approval
	// listed marks a as workflow.Approval.Listed (from the sweeper): the
	// whole approval is read before its message is rendered.
	listed bool
	// fresh marks a as read whole from the store just before the update.
	fresh bool
	// tries bounds the calls made for this job before the failure is
	// recorded on the approval (workflow.Service.MessageFailed), which
	// backs it off per record: a decision's update retries quickly a few
	// times; a sweep's update tries once.
	tries int
	// force: update the message though the record says it shows the
	// outcome (a late progress update may have replaced it; see correct).
	force bool
	// redo: a correction was asked while the job ran; update once more.
	redo     bool
	reply    bool // post the thread reply once the message is updated
	replied  bool // the reply was attempted (or given up)
	updated  bool // the message shows the outcome; only the reply is left
	attempts int
	state    jobState
}

type jobState int

const (
	jobQueued jobState = iota
	jobDelayed
	jobBusy
)

func newUpdater(api *slack.Client, approvals Approvals, cfg Config, log *zap.Logger) *updater {
	return &updater{
		api:       api,
		approvals: approvals,
		log:       log,
		cfg:       cfg,
		updates:   pacing.New(cfg.UpdateRate),
		replies:   pacing.NewKeyed(cfg.ReplyRate),
		jobs:      map[string]*updateJob{},
		refreshes: map[string]*refreshJob{},
		signal:    make(chan struct{}),
	}
}

// enqueue asks for a's message to show its outcome, with the thread reply
// when reply is set. Approvals that are not final or have no message are
// ignored; so is one whose message shows its outcome already, unless the
// reply is asked for: another replica's sweeper may have updated the
// message while this one was still recording the decision, and the reply
// is still this replica's to post.
func (u *updater) enqueue(a workflow.Approval, reply bool) {
	if !a.Status.Final() || a.MessageTS == "" || a.MessageSynced && !reply {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if j, ok := u.jobs[a.ID]; ok {
		if j.state != jobBusy {
			j.a, j.listed, j.fresh = a, false, false
		}
		j.reply = j.reply || reply
		return
	}
	if u.stopping {
		return
	}
	u.jobs[a.ID] = &updateJob{a: a, reply: reply, tries: u.cfg.UpdateAttempts, updated: a.MessageSynced}
	u.push(a.ID, false)
}

// enqueueListed asks for the message of an approval the sweeper listed
// (workflow.Approval.Listed) to show its outcome, and reports whether it
// queued a job. The job reads the whole approval before rendering; a job
// already queued keeps its approval.
func (u *updater) enqueueListed(a workflow.Approval) bool {
	if !a.Status.Final() || a.MessageTS == "" || a.MessageSynced {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.jobs[a.ID]; ok || u.stopping {
		return false
	}
	u.jobs[a.ID] = &updateJob{a: a, listed: true, tries: 1}
	u.push(a.ID, false)
	return true
}

// correct asks for the final approval a's message to show its outcome
// again, whatever the record says: a progress update of this replica may
// have reached Slack after the outcome. The job retries as a decision's
// update does.
func (u *updater) correct(a workflow.Approval) {
	if !a.Status.Final() || a.MessageTS == "" {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if j, ok := u.jobs[a.ID]; ok {
		if j.state == jobBusy {
			j.redo = true
			return
		}
		j.a, j.listed, j.fresh, j.force, j.updated = a, false, false, true, false
		if j.state == jobQueued {
			u.ready = slices.DeleteFunc(u.ready, func(id string) bool { return id == a.ID })
			u.replyQueue = slices.DeleteFunc(u.replyQueue, func(id string) bool { return id == a.ID })
			u.push(a.ID, false)
		}
		return
	}
	if u.stopping {
		return
	}
	u.jobs[a.ID] = &updateJob{a: a, force: true, tries: u.cfg.UpdateAttempts}
	u.push(a.ID, false)
}

// push queues the job for its next step: the update, or the reply once the
// message is updated. front puts it first in line (after a 429).
func (u *updater) push(id string, front bool) {
	j := u.jobs[id]
	queue := &u.ready
	if j.updated {
		queue = &u.replyQueue
	}
	if front {
		*queue = append([]string{id}, *queue...)
	} else {
		*queue = append(*queue, id)
	}
	j.state = jobQueued
	close(u.signal)
	u.signal = make(chan struct{})
}

// stop makes the workers return once no update is ready; delayed retries
// are left to the sweeper of the next replica.
func (u *updater) stop() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopping = true
	close(u.signal)
	u.signal = make(chan struct{})
}

// replyWorkers post thread replies; each waits on its channel's limiter.
const replyWorkers = 2

// run performs updates and replies until stop and empty queues, or until
// ctx is done.
func (u *updater) run(ctx context.Context) {
	u.mu.Lock()
	u.runCtx = ctx
	u.mu.Unlock()
	var wg sync.WaitGroup
	work := func(queue *[]string, step func(context.Context, *updateJob)) {
		for {
			j := u.next(ctx, queue)
			if j == nil {
				return
			}
			step(ctx, j)
		}
	}
	for range max(u.cfg.UpdateWorkers, 1) {
		wg.Go(func() { work(&u.ready, u.update) })
	}
	for range replyWorkers {
		wg.Go(func() { work(&u.replyQueue, u.reply) })
	}
	wg.Go(func() {
		for {
			j := u.nextRefresh(ctx)
			if j == nil {
				return
			}
			u.refreshMessage(ctx, j)
		}
	})
	wg.Go(func() {
		for {
			n, ok := u.nextNote(ctx)
			if !ok {
				return
			}
			u.post(ctx, n)
		}
	})
	wg.Go(func() {
		for {
			a, ok := u.nextTold(ctx)
			if !ok {
				return
			}
			u.tellRequester(ctx, a, u.log.With(zap.String("approval_id", a.ID), zap.String("execution_arn", a.ExecutionARN)))
		}
	})
	wg.Wait()
	if l := u.leftBehind(); l.any() {
		u.log.Warn("stopped before this Slack work was done; the sweeper of a running replica updates the messages, the rest is not sent",
			zap.Int("message_updates", l.updates), zap.Int("thread_replies", l.replies), zap.Int("progress_updates", l.refreshes),
			zap.Int("thread_notes", l.notes), zap.Strings("requester_notices", l.notices))
	}
}

// cutShort reports whether run's context has ended. u.mu is held.
func (u *updater) cutShort() bool { return u.runCtx != nil && u.runCtx.Err() != nil }

// leftWork is what the updater had not done when it stopped.
type leftWork struct {
	updates, replies, refreshes, notes int
	notices                            []string // approval IDs, at most maxLeftIDs
}

// maxLeftIDs bounds the approval IDs leftBehind lists.
const maxLeftIDs = 20

func (l leftWork) any() bool {
	return l.updates+l.replies+l.refreshes+l.notes+len(l.notices) > 0
}

// leftBehind counts the work still queued, or ended by run's context.
func (u *updater) leftBehind() leftWork {
	u.mu.Lock()
	defer u.mu.Unlock()
	var l leftWork
	for _, j := range u.jobs {
		switch {
		case !j.updated:
			l.updates++
		case j.reply && !j.replied:
			l.replies++
		}
	}
	l.refreshes, l.notes = len(u.refreshes), len(u.notes)
	for _, a := range u.told[:min(len(u.told), maxLeftIDs)] {
		l.notices = append(l.notices, a.ID)
	}
	return l
}

// wake tells the workers that work arrived or the updater stops. u.mu is
// held.
func (u *updater) wake() {
	close(u.signal)
	u.signal = make(chan struct{})
}

// waitWork waits for the next wake; it reports false when ctx ended or the
// updater stops. u.mu is held on entry and on return.
func (u *updater) waitWork(ctx context.Context) bool {
	stopping, signal := u.stopping, u.signal
	u.mu.Unlock()
	defer u.mu.Lock()
	if stopping {
		return false
	}
	select {
	case <-ctx.Done():
		return false
	case <-signal:
		return true
	}
}

func (u *updater) next(ctx context.Context, queue *[]string) *updateJob {
	for {
		if ctx.Err() != nil {
			return nil
		}
		u.mu.Lock()
		if len(*queue) > 0 {
			id := (*queue)[0]
			*queue = (*queue)[1:]
			j := u.jobs[id]
			j.state = jobBusy
			u.mu.Unlock()
			return j
		}
		stopping, signal := u.stopping, u.signal
		u.mu.Unlock()
		if stopping {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-signal:
		}
	}
}

// update makes the message show the outcome, then hands the job to the
// reply workers (through done) if a reply is due.
func (u *updater) update(ctx context.Context, j *updateJob) {
	log := u.log.With(zap.String("approval_id", j.a.ID), zap.String("execution_arn", j.a.ExecutionARN))
	sent, err := u.updates.Wait(ctx)
	if err != nil {
		u.done(j)
		return
	}
	// A job the sweeper listed holds part of the approval: read it whole,
	// which also tells whether the message still needs updating.
	if j.listed && !u.readWhole(ctx, j, log) {
		u.updates.Release()
		u.done(j)
		return
	}
	if !j.force && u.updatedElsewhere(ctx, j) {
		u.updates.Release()
		u.mu.Lock()
		j.updated = true // the thread reply is still this replica's to post
		u.mu.Unlock()
		u.done(j)
		return
	}
	a := j.a
	callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	_, _, _, err = u.api.UpdateMessageContext(callCtx, a.Channel, a.MessageTS, blocks.OutcomeMessage(a).Options()...)
	cancel()
	if d, limited := u.updates.Done(sent, err); limited {
		log.Info("Slack rate limits chat.update; every update waits", zap.Duration("retry_after", d))
		u.requeue(j)
		return
	}
	if err != nil && !permanentUpdateError(err) {
		u.retry(ctx, j, log, chat.NewAPIError("chat.update", err))
		return
	}
	u.mu.Lock()
	j.updated = true
	if err != nil {
		j.replied = true
	}
	u.mu.Unlock()
	if err != nil {
		log.Error("request message cannot be updated; giving up on it", zap.Error(chat.NewAPIError("chat.update", err)), zap.String("alert", alertMessageGaveUp))
	}
	syncCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	err = u.approvals.MessageSynced(syncCtx, a.ID)
	cancel()
	if err != nil {
		log.Warn("could not record that the message is updated; the sweeper will update it again", zap.Error(chat.Redacted(err)))
	} else {
		u.toldLater(a)
	}
	u.done(j)
}

// readWhole replaces a listed job's approval with the stored one, and
// reports whether its message still needs updating. A failed read is left
// to the next sweep.
func (u *updater) readWhole(ctx context.Context, j *updateJob, log *zap.Logger) bool {
	callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	a, err := u.approvals.Get(callCtx, j.a.ID)
	cancel()
	if err != nil {
		if workflow.ErrorCode(err) != workflow.ENOTFOUND {
			log.Warn("could not read the approval to update its message; the sweeper will try again", zap.Error(chat.Redacted(err)))
		}
		return false
	}
	u.mu.Lock()
	j.a, j.listed, j.fresh = a, false, true
	u.mu.Unlock()
	return a.Status.Final() && a.MessageTS != "" && !a.MessageSynced
}

// reply posts the decision's short reply in the request's thread.
func (u *updater) reply(ctx context.Context, j *updateJob) {
	a := j.a
	pace := u.replies.Get(a.Channel)
	sent, err := pace.Wait(ctx)
	if err != nil {
		u.done(j)
		return
	}
	callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	_, _, err = u.api.PostMessageContext(callCtx, a.Channel,
		slack.MsgOptionText(blocks.ReplyText(a), false), slack.MsgOptionTS(a.ThreadRoot()))
	cancel()
	if _, limited := pace.Done(sent, err); limited {
		u.requeue(j)
		return
	}
	u.mu.Lock()
	j.replied = true
	u.mu.Unlock()
	if err != nil {
		u.log.Warn("thread reply not posted", zap.String("approval_id", a.ID), zap.Error(chat.NewAPIError("chat.postMessage", err)))
	}
	u.done(j)
}

// permanentUpdateError reports whether retrying chat.update cannot help.
func permanentUpdateError(err error) bool {
	switch chat.Code(err) {
	case "cant_update_message", "message_not_found", "channel_not_found", "is_archived",
		"invalid_blocks", "msg_too_long", "msg_blocks_too_long", "edit_window_closed":
		return true
	}
	return false
}

// done forgets a finished job, unless a correction (see correct) or a
// reply was asked for while it ran.
func (u *updater) done(j *updateJob) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cutShort() && (!j.updated || j.reply && !j.replied) {
		return // left undone: leftBehind counts it
	}
	if j.redo && !u.stopping {
		j.redo, j.force, j.updated, j.listed = false, true, false, false
		u.push(j.a.ID, false)
		return
	}
	if j.updated && j.reply && !j.replied {
		u.push(j.a.ID, false)
		return
	}
	delete(u.jobs, j.a.ID)
}

// requeue puts a rate-limited job first in line; the paused pacer holds
// it back.
func (u *updater) requeue(j *updateJob) {
	u.mu.Lock()
	defer u.mu.Unlock()
	// The approval was read before the pause: another replica may update
	// the message meanwhile, so the job asks again before its next call.
	j.fresh = false
	u.push(j.a.ID, true)
}

func (u *updater) retry(ctx context.Context, j *updateJob, log *zap.Logger, err error) {
	j.attempts++
	if j.attempts >= max(j.tries, 1) || ctx.Err() != nil {
		if ctx.Err() == nil {
			u.failed(ctx, j.a.ID, log, err)
		}
		u.done(j)
		return
	}
	delay := backoff(u.cfg.RetryBase, u.cfg.RetryMax, j.attempts)
	log.Info("request message not updated; retrying", zap.Int("attempts", j.attempts), zap.Duration("retry_in", delay), zap.Error(err))
	u.mu.Lock()
	j.state = jobDelayed
	u.mu.Unlock()
	time.AfterFunc(delay, func() {
		u.mu.Lock()
		defer u.mu.Unlock()
		if u.jobs[j.a.ID] == j && j.state == jobDelayed && !u.stopping {
			u.push(j.a.ID, false)
		}
	})
}

// failed records on the approval that its message could not be updated,
// so the sweeper tries again only when the record's backoff allows, and
// logs the one warning when the record gives up.
func (u *updater) failed(ctx context.Context, id string, log *zap.Logger, cause error) {
	callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	a, err := u.approvals.MessageFailed(callCtx, id)
	cancel()
	switch {
	case err != nil && workflow.ErrorCode(err) != workflow.ECONFLICT:
		log.Warn("request message not updated, and the failure not recorded; the sweeper will try again", zap.NamedError("cause", cause), zap.Error(chat.Redacted(err)))
	case err != nil: // synced or given up meanwhile
	case a.MessageGaveUp:
		log.Warn("giving up on updating the request message; it still shows its buttons",
			zap.Int("attempts", a.MessageAttempts), zap.String("channel", a.Channel), zap.String("message_ts", a.MessageTS), zap.Error(cause),
			zap.String("alert", alertMessageGaveUp))
	default:
		log.Info("request message not updated; the sweeper tries again later",
			zap.Int("attempts", a.MessageAttempts), zap.Time("retry_at", a.MessageRetryAt), zap.Error(cause))
	}
}

// backoff is base·2^(attempt-1), capped at ceiling, with ±50% jitter.
func backoff(base, ceiling time.Duration, attempt int) time.Duration {
	d := base << min(attempt-1, 20)
	if d <= 0 || d > ceiling {
		d = ceiling
	}
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}

// updatedElsewhere reports whether j's message already shows the outcome,
// updated by another replica since j was queued. Every replica's sweeper
// queues every message still stale SweepGrace after its decision, so while
// Slack holds updates back the same message waits in several outboxes;
// checking just before the call keeps them from spending Slack's allowance
// twice. Younger jobs are not checked (no other sweeper queues them), nor
// jobs whose approval was just read whole; a failed read says no.
func (u *updater) updatedElsewhere(ctx context.Context, j *updateJob) bool {
	if j.fresh || u.cfg.SweepGrace > 0 && time.Since(j.a.ClosedAt) < u.cfg.SweepGrace {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	defer cancel()
	a, err := u.approvals.Get(ctx, j.a.ID)
	return err == nil && a.MessageSynced
}
