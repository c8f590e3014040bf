package slackbot

import (
	"context"
	"slices"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// The people's side of the bot: one-click change requests, Edit &
// approve's first step, the requester's withdrawal, "are you sure?"
// before an action picked from a menu, and the check that a delegate is
// an active person.

// presetClick handles a preset's button: a change request with that
// preset, at once, exactly as the Request changes modal sends it (the
// button carried Slack's confirm dialog when the request asks for one).
func (b *Bot) presetClick(ctx context.Context, c click, ack func()) {
	log := c.logger(b.log)
	a, err := b.lookup(ctx, c.approvalID)
	if err != nil {
		b.tellLookupFailed(ctx, c.replyTo(), err, log)
		return
	}
	d, ok := menuPick(a, c.action)
	if !ok {
		log.Warn("preset button of a preset the request does not have ignored")
		b.tell(ctx, c.replyTo().within(a), blocks.T(a.Locale, "why.unknown_preset"), log)
		return
	}
	d.DecidedBy = c.user
	b.decide(ctx, c.replyTo(), c.approvalID, d, c.on, log, ack)
}

// sureSubmitted does the action an "are you sure?" modal confirmed: a
// skip or a preset's change request.
func (b *Bot) sureSubmitted(ctx context.Context, to replyTo, c click, log *zap.Logger, ack func()) {
	a, err := b.lookup(ctx, c.approvalID)
	if err != nil {
		b.tellLookupFailed(ctx, to, err, log)
		return
	}
	d, ok := menuPick(a, c.action)
	if !ok {
		log.Warn("confirmed action unknown; nothing done", zap.String("confirmed", c.action))
		b.tell(ctx, to.within(a), blocks.T(a.Locale, "why.unknown_action"), log)
		return
	}
	d.DecidedBy = c.user
	b.decide(ctx, to, a.ID, d, c.on, log, ack)
}

// tellLookupFailed answers a click whose approval could not be read.
func (b *Bot) tellLookupFailed(ctx context.Context, to replyTo, err error, log *zap.Logger) {
	if workflow.ErrorCode(err) == workflow.ENOTFOUND {
		b.tell(ctx, to, blocks.T(b.cfg.Locale, blocks.KNotFound), log)
		return
	}
	log.Error("approval lookup failed", zap.Error(chat.Redacted(err)))
	b.tell(ctx, to, blocks.T(b.cfg.Locale, blocks.KTransient), log)
}

// submitBudget is how long after a submission the pool may still answer it
// in its ack: Slack waits 3 s.
const submitBudget = 2500 * time.Millisecond

// editPicked answers Edit & approve's first step (which draft) with its
// second: the draft prefilled in the edit modal, which replaces the first
// (response_action "update").
func (b *Bot) editPicked(ctx context.Context, envelopeID string, arrived time.Time, ref modalRef, log *zap.Logger) {
	ctx, cancel := context.WithDeadline(ctx, arrived.Add(submitBudget))
	defer cancel()
	a, err := b.approvals.Get(ctx, ref.id)
	l := b.localeOf(a)
	switch {
	case err != nil:
		log.Warn("approval not read for the edit modal", zap.Error(chat.Redacted(err)))
		b.ackSince(envelopeID, slack.NewErrorsViewSubmissionResponse(map[string]string{blocks.InputDraft: blocks.T(l, blocks.KTransient)}), arrived)
		return
	case ref.draft >= len(a.Drafts) || !a.AllowEdit || !workflow.Editable(a.Drafts[ref.draft]):
		b.ackSince(envelopeID, slack.NewErrorsViewSubmissionResponse(map[string]string{blocks.InputDraft: blocks.T(l, blocks.KNotEditable)}), arrived)
		return
	}
	view := blocks.EditModal(a, ref.draft)
	ref.need = slices.Contains(a.Policy.RequireComment, workflow.ActionApprove)
	view.PrivateMetadata = ref.String()
	b.ackSince(envelopeID, slack.NewUpdateViewSubmissionResponse(&view), arrived)
}

// delegateChecked asks Slack who the delegate is before acking the Hand
// over modal: an app or a bot, a deactivated account, a guest (single- or
// multi-channel: they may not see the request's channel) or a user Slack
// does not know is refused in the modal, as Slack shows form errors. It
// reports whether the hand-over may go ahead (the modal is closed once it
// is recorded).
func (b *Bot) delegateChecked(ctx context.Context, envelopeID string, arrived time.Time, ref modalRef, delegate string, log *zap.Logger) bool {
	ctx, cancel := context.WithDeadline(ctx, arrived.Add(submitBudget))
	defer cancel()
	refuse := func(key blocks.Key, args ...any) bool {
		b.ackSince(envelopeID, slack.NewErrorsViewSubmissionResponse(map[string]string{blocks.InputDelegate: blocks.T(ref.locale, key, args...)}), arrived)
		return false
	}
	u, err := b.api.GetUserInfoContext(ctx, delegate)
	who := blocks.Mention(delegate)
	switch {
	case chat.Code(err) == "user_not_found":
		return refuse(blocks.KSubDelegateUnknown)
	case err != nil:
		log.Warn("delegate not checked with Slack", zap.String("delegate", delegate), zap.Error(chat.NewAPIError("users.info", err)))
		return refuse(blocks.KSubDelegateUnchecked)
	case u.IsBot || u.IsAppUser || delegate == "USLACKBOT":
		return refuse(blocks.KSubDelegateBot, who)
	case u.Deleted:
		return refuse(blocks.KSubDelegateGone, who)
	case u.IsRestricted || u.IsUltraRestricted:
		return refuse(blocks.KSubDelegateGuest, who)
	}
	return true // acked once the hand-over is recorded
}

// withdraw takes the request back for its requester, from the Withdraw
// modal: the execution fails with Withdrawn, the message closes like a
// rejection and says who withdrew it. It acks once the withdrawal is
// recorded (see record).
func (b *Bot) withdraw(ctx context.Context, to replyTo, ref modalRef, user, reason string, log *zap.Logger, ack func()) {
	b.record(ctx, to, log, ack, func(ctx context.Context) (workflow.Claimed, error) {
		return b.approvals.ClaimWithdrawal(ctx, ref.id, user, reason, ref.on)
	}, func(ctx context.Context, a workflow.Approval, err error) {
		b.withdrawn(ctx, to, ref, a, err, log)
	})
}

// withdrawn answers a withdrawal, done or refused.
func (b *Bot) withdrawn(ctx context.Context, to replyTo, ref modalRef, a workflow.Approval, err error, log *zap.Logger) {
	b.metrics.decided(err, a)
	to, a, log, l := b.answering(ctx, to, ref.id, a, log)
	switch workflow.ErrorCode(err) {
	case "":
		if err != nil {
			log.Error("withdrawal failed", zap.Error(chat.Redacted(err)))
			b.tell(ctx, to, failureText(l, err), log)
			return
		}
		log.Info("withdrawn", zap.String("status", string(a.Status)))
		b.updates.enqueue(a, true)
		b.tell(ctx, to, blocks.T(l, blocks.KWithdrew, blocks.Escape(a.Title)), log)
	case workflow.ECONFLICT, workflow.EEXPIRED, workflow.ECANCELLED, workflow.ENOTFOUND:
		b.tellTooLate(ctx, to, err, a, log)
	default:
		log.Info("withdrawal refused", zap.Error(err))
		b.tell(ctx, to, blocks.ErrorText(l, err), log)
	}
}
