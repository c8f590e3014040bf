package slackbot

import (
	"context"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// note is one of the bot's notes in a request's thread: a reminder, an
// escalation, a hand-over.
type note struct {
	approvalID, executionARN string
	channel, thread          string
	text                     string
	// posted, when set, is called once the note is posted.
	posted func(ctx context.Context)
}

// notify posts text in the thread of a's request, once: the caller did the
// step the note tells of, and no other replica posts it. Notes are paced
// per channel like the decisions' replies and sent again after a 429
// (Slack posted nothing); any other failure is logged and the note
// dropped: the message and the audit trail still show the step. A request
// whose message is not recorded gets no note.
func (u *updater) notify(a workflow.Approval, text string) { u.notifyThen(a, text, nil) }

// notifyThen is notify, calling posted once the note is posted.
func (u *updater) notifyThen(a workflow.Approval, text string, posted func(ctx context.Context)) {
	if a.MessageTS == "" || a.Channel == "" {
		u.log.Info("no request message to post a note under", zap.String("approval_id", a.ID))
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.stopping {
		return
	}
	u.notes = append(u.notes, note{approvalID: a.ID, executionARN: a.ExecutionARN, channel: a.Channel, thread: a.ThreadRoot(), text: text, posted: posted})
	u.wake()
}

func (u *updater) nextNote(ctx context.Context) (note, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for ctx.Err() == nil {
		if len(u.notes) > 0 {
			n := u.notes[0]
			u.notes = u.notes[1:]
			return n, true
		}
		if !u.waitWork(ctx) {
			return note{}, false
		}
	}
	return note{}, false
}

// post sends one note, waiting on its channel's pacer.
func (u *updater) post(ctx context.Context, n note) {
	pace := u.replies.Get(n.channel)
	sent, err := pace.Wait(ctx)
	if err != nil { // run's context ended: left for leftBehind to count
		u.mu.Lock()
		u.notes = append([]note{n}, u.notes...)
		u.mu.Unlock()
		return
	}
	callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	_, _, err = u.api.PostMessageContext(callCtx, n.channel, slack.MsgOptionText(n.text, false), slack.MsgOptionTS(n.thread))
	cancel()
	if _, limited := pace.Done(sent, err); limited {
		u.mu.Lock()
		u.notes = append([]note{n}, u.notes...)
		u.wake()
		u.mu.Unlock()
		return
	}
	if err != nil {
		u.log.Warn("note not posted in the request's thread", zap.String("approval_id", n.approvalID),
			zap.String("execution_arn", n.executionARN), zap.Error(chat.NewAPIError("chat.postMessage", err)))
		return
	}
	if n.posted != nil {
		callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
		n.posted(callCtx)
		cancel()
	}
}
