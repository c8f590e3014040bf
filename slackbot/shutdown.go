package slackbot

import (
	"cmp"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/chat"
)

// Answers to acknowledged work that shutdown left undone: queued work was
// never started, so nothing was decided; work cut short may have been.
const (
	textClickNotApplied  = blocks.KDownClickNotApplied
	textClickCut         = blocks.KDownClickCut
	textSubmitNotApplied = blocks.KDownSubmitNotApplied
	textSubmitCut        = blocks.KDownSubmitCut
	// The decision is recorded; its resume was left to Recover.
	textRecordedNotResumed = blocks.KDownRecorded
	textOpenNotDone        = blocks.KDownOpenNotDone
	textOpenCut            = blocks.KDownOpenCut
)

// answerReserve is the part of the shutdown timeout kept for telling people
// about work the drain did not finish.
func answerReserve(timeout time.Duration) time.Duration { return min(timeout/4, 2*time.Second) }

// answerLeftovers tells the person behind every job the pool did not
// finish, and behind every envelope missed (never acked), a few at a time,
// within d.
func (b *Bot) answerLeftovers(d time.Duration, missed []job) {
	queued, interrupted := b.claims.leftovers()
	for _, p := range []*pool{b.pool, b.resumes} {
		q, i := p.leftovers()
		queued, interrupted = append(queued, q...), append(interrupted, i...)
	}
	queued = append(queued, missed...)
	if len(queued)+len(interrupted) == 0 {
		return
	}
	b.log.Warn("shutdown deadline passed; answering the work not done",
		zap.Int("not_started", len(queued)), zap.Int("cut_short", len(interrupted)))
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	slots := make(chan struct{}, b.cfg.Workers)
	var wg sync.WaitGroup
	answer := func(jobs []job, started bool) {
		for _, j := range jobs {
			if j.abandon == nil {
				continue
			}
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				j.abandon(ctx, started)
			})
		}
	}
	answer(queued, false)
	answer(interrupted, true)
	wg.Wait()
}

// unacked is the answer to an envelope the bot received but could not ack
// before its socket closed: a click or a command. A modal submission needs
// none: Slack keeps the modal open with an error, ready to submit again.
func (b *Bot) unacked(ev socketmode.Event) (job, bool) {
	switch data := ev.Data.(type) {
	case slack.InteractionCallback:
		if data.Type != slack.InteractionTypeBlockActions {
			return job{}, false
		}
		to := replyTo{user: data.User.ID, channel: cmp.Or(data.Channel.ID, data.Container.ChannelID),
			thread: cmp.Or(data.Container.ThreadTs, data.Message.ThreadTimestamp), home: onOwnHome(data)}
		log := b.log.With(zap.String("envelope_id", ev.Request.EnvelopeID), zap.String("slack_user", to.user))
		return job{abandon: func(ctx context.Context, _ bool) { b.tell(ctx, to, blocks.T(b.cfg.Locale, textClickNotApplied), log) }}, true
	case slack.SlashCommand:
		return job{abandon: b.commandAbandoned(ev.Request.EnvelopeID, data)}, true
	}
	return job{}, false
}

// clickAbandoned answers a click on a button that decides (started: it may
// have been applied).
func (b *Bot) clickAbandoned(c click) func(context.Context, bool) {
	return func(ctx context.Context, started bool) {
		text := textClickNotApplied
		if started {
			text = textClickCut
		}
		b.tell(ctx, c.replyTo(), blocks.T(b.cfg.Locale, text), c.logger(b.log))
	}
}

// recordedAbandoned answers a decision recorded in the store whose resume
// shutdown left undone or cut short: it stands, and a surviving replica's
// Recover resumes the execution once the claim's lease has passed.
func (b *Bot) recordedAbandoned(to replyTo, log *zap.Logger) func(context.Context, bool) {
	return func(ctx context.Context, _ bool) {
		b.tell(ctx, to, blocks.T(b.cfg.Locale, textRecordedNotResumed), log)
	}
}

// acking returns abandon that first acks with ack: work that acks when
// done, left undone.
func acking(ack func(), abandon func(context.Context, bool)) func(context.Context, bool) {
	return func(ctx context.Context, started bool) {
		ack()
		abandon(ctx, started)
	}
}

// openAbandoned answers a click that opens a modal.
func (b *Bot) openAbandoned(c click) func(context.Context, bool) {
	return func(ctx context.Context, started bool) {
		text := textOpenNotDone
		if started {
			text = textOpenCut
		}
		b.tell(ctx, c.replyTo(), blocks.T(b.cfg.Locale, text), c.logger(b.log))
	}
}

// submitAbandoned answers a modal submission beside the approval's message
// (a submission carries no channel), or on the App Home it came from.
func (b *Bot) submitAbandoned(to replyTo, id string, log *zap.Logger) func(context.Context, bool) {
	return func(ctx context.Context, started bool) {
		text := textSubmitNotApplied
		if started {
			text = textSubmitCut
		}
		if to.home {
			b.tell(ctx, to, blocks.T(b.cfg.Locale, text), log)
			return
		}
		a, err := b.lookup(ctx, id)
		if err != nil {
			log.Warn("nowhere to answer a submission left undone at shutdown", zap.Error(chat.Redacted(err)))
			return
		}
		b.tell(ctx, to.within(a), blocks.T(a.Locale, text), log)
	}
}

// commandAbandoned answers a slash command through its response URL.
func (b *Bot) commandAbandoned(envelopeID string, cmd slack.SlashCommand) func(context.Context, bool) {
	return func(ctx context.Context, started bool) {
		log := b.log.With(zap.String("envelope_id", envelopeID), zap.String("slack_user", cmd.UserID), zap.String("action", "command"))
		typed := strings.TrimSpace(cmd.Command + " " + cmd.Text)
		text := blocks.T(b.cfg.Locale, blocks.KDownCommand, blocks.Escape(typed))
		if started {
			text = blocks.T(b.cfg.Locale, blocks.KDownCommandCut, blocks.Escape(typed))
		}
		b.answerCommand(ctx, log, cmd, blocks.Message{Text: text})
	}
}
