package slackbot

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// refreshJob is a pending approval whose message is to show its progress.
type refreshJob struct {
	id           string
	executionARN string
	busy         bool
	// again: the approval changed while the job ran; run it once more.
	again bool
}

// maxRefreshRounds bounds the updates one refresh makes while the
// approval keeps changing under it.
const maxRefreshRounds = 4

// refresh asks for the message of the pending approval a to show what
// changed on it (a vote counted, a hand-over, a reminder, an escalation)
// without losing its buttons. The job reads the approval when it runs, so
// several changes make one update. Slack has no conditional update, so
// after its update lands the job reads the approval again: if it changed
// meanwhile (another replica may have shown an older state last) it
// updates again, and if it was decided meanwhile it shows the outcome, so
// a late progress update never brings buttons back; when that correction
// fails, it goes to the outbox as a decision's update does (correct),
// since the record may already say the message shows the outcome. Another
// failed update is logged and left: the next change, or the outcome,
// rewrites the message.
func (u *updater) refresh(a workflow.Approval) {
	if a.MessageTS == "" || a.Status.Final() {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.stopping {
		return
	}
	if j, ok := u.refreshes[a.ID]; ok {
		j.again = j.again || j.busy
		return
	}
	u.refreshes[a.ID] = &refreshJob{id: a.ID, executionARN: a.ExecutionARN}
	u.refreshQueue = append(u.refreshQueue, a.ID)
	u.wake()
}

func (u *updater) nextRefresh(ctx context.Context) *refreshJob {
	u.mu.Lock()
	defer u.mu.Unlock()
	for ctx.Err() == nil {
		if len(u.refreshQueue) > 0 {
			j := u.refreshes[u.refreshQueue[0]]
			u.refreshQueue = u.refreshQueue[1:]
			j.busy, j.again = true, false
			return j
		}
		if !u.waitWork(ctx) {
			return nil
		}
	}
	return nil
}

// refreshMessage runs one refresh job (see refresh). Each round takes its
// turn at chat.update before it reads the approval, so what it sends is
// what the store held just before: Slack's pacing (a 429 holds every
// update back for its Retry-After) cannot make it send a state that was
// decided while it waited.
func (u *updater) refreshMessage(ctx context.Context, j *refreshJob) {
	log := u.log.With(zap.String("approval_id", j.id), zap.String("execution_arn", j.executionARN))
	shown := -1 // the AuditSeq of the state the message shows, once updated
	for range maxRefreshRounds {
		sent, err := u.updates.Wait(ctx)
		if err != nil {
			break
		}
		callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
		a, err := u.approvals.Get(callCtx, j.id)
		cancel()
		if err != nil {
			u.updates.Release()
			log.Warn("could not read the approval to show its progress", zap.Error(chat.Redacted(err)))
			break
		}
		msg := blocks.RequestMessage(a)
		switch {
		case a.Status.Final() && shown >= 0:
			// Decided since: make sure the outcome, not this job's
			// update, is what the message shows last.
			msg = blocks.OutcomeMessage(a)
		case a.Status != workflow.StatusPending, a.AuditSeq == shown:
			u.updates.Release()
			u.refreshed(j)
			return
		}
		limited, err := u.send(ctx, sent, a, msg)
		switch {
		case limited && a.Status.Final(), err != nil && a.Status.Final():
			// This job's progress update may be what the message shows,
			// after the outcome: the outbox retries the outcome.
			log.Info("request message showed progress after its outcome; the outbox updates it", zap.Error(chat.NewAPIError("chat.update", err)))
			u.correct(a)
			u.refreshed(j)
			return
		case limited:
			u.requeueRefresh(j)
			return
		case err != nil:
			log.Warn("request message not updated with its progress", zap.Error(chat.NewAPIError("chat.update", err)))
			u.refreshed(j)
			return
		case a.Status.Final():
			u.refreshed(j)
			return
		}
		shown = a.AuditSeq
	}
	u.refreshed(j)
}

// send sends msg as a's message, in the chat.update turn the pacer gave
// at sent; limited reports a 429, after which the call is to be repeated.
func (u *updater) send(ctx context.Context, sent time.Time, a workflow.Approval, msg blocks.Message) (limited bool, err error) {
	callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	_, _, _, err = u.api.UpdateMessageContext(callCtx, a.Channel, a.MessageTS, msg.Options()...)
	cancel()
	if _, limited := u.updates.Done(sent, err); limited {
		return true, err
	}
	return false, err
}

// refreshed ends a job, or queues it again when a change came meanwhile.
func (u *updater) refreshed(j *refreshJob) {
	u.mu.Lock()
	defer u.mu.Unlock()
	j.busy = false
	if u.cutShort() {
		return // left undone: leftBehind counts it
	}
	if j.again && !u.stopping {
		u.refreshQueue = append(u.refreshQueue, j.id)
		u.wake()
		return
	}
	delete(u.refreshes, j.id)
}

// requeueRefresh puts a rate-limited job first in line; the paused pacer
// holds it back.
func (u *updater) requeueRefresh(j *refreshJob) {
	u.mu.Lock()
	defer u.mu.Unlock()
	j.busy = false
	u.refreshQueue = append([]string{j.id}, u.refreshQueue...)
	u.wake()
}
