package slackbot

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// click is a button press, as much of it as the handlers need.
type click struct {
	envelopeID string
	user       string
	channel    string
	thread     string
	triggerID  string
	// on is the request message the button is on; zero when the click
	// came from elsewhere (the clicker's App Home, an ephemeral message, a
	// view).
	on workflow.MessageRef
	// home: the button is on the clicker's own App Home.
	home       bool
	approvalID string
	action     string
	// draft is the draft an "approve with comment" button approves, or
	// workflow.NoDraft.
	draft int
	at    time.Time
}

func (c click) logger(log *zap.Logger) *zap.Logger {
	return log.With(zap.String("envelope_id", c.envelopeID), zap.String("slack_user", c.user),
		zap.String("approval_id", c.approvalID), zap.String("action", c.action))
}

// replyTo is where a private answer goes: beside a message, or on the
// person's App Home (home).
type replyTo struct {
	user, channel, thread string
	home                  bool
}

// within places the answer beside the approval's message when it is known
// and the click was in its channel or nowhere (a modal submission); a
// click on a message in another channel is answered there, and a click on
// the App Home on the App Home.
func (r replyTo) within(a workflow.Approval) replyTo {
	if !r.home && a.Channel != "" && (r.channel == "" || r.channel == a.Channel) {
		r.channel, r.thread = a.Channel, a.ThreadTS
	}
	return r
}

// failureText is the private answer, in locale, to a failure that is not
// a domain error.
func failureText(locale string, err error) string {
	if errors.Is(err, ErrMembershipUnknown) {
		return blocks.T(locale, blocks.KNoGroups)
	}
	return blocks.T(locale, blocks.KTransient)
}

// localeOf is the language of answers about a: its own, or the bot's
// when a is not known.
func (b *Bot) localeOf(a workflow.Approval) string {
	if a.ID == "" {
		return b.cfg.Locale
	}
	return a.Locale
}

// decideClick handles Approve, Approve draft N and Skip.
func (b *Bot) decideClick(ctx context.Context, c click, d workflow.Decision, ack func()) {
	d.DecidedBy = c.user
	b.decide(ctx, c.replyTo(), c.approvalID, d, c.on, c.logger(b.log), ack)
}

// replyTo is where the answer to the click goes.
func (c click) replyTo() replyTo {
	return replyTo{user: c.user, channel: c.channel, thread: c.thread, home: c.home}
}

// decide records a decision (Approvals.Claim), acks it with ack and
// answers with decided (see record).
func (b *Bot) decide(ctx context.Context, to replyTo, id string, d workflow.Decision, on workflow.MessageRef, log *zap.Logger, ack func()) {
	b.record(ctx, to, log, ack, func(ctx context.Context) (workflow.Claimed, error) {
		return b.approvals.Claim(ctx, id, d, on)
	}, func(ctx context.Context, a workflow.Approval, err error) {
		b.decided(ctx, to, id, d, a, err, log)
	})
}

// record records a decision with claim, then acks it with ack: from then
// on the decision no longer depends on this replica. It answers with
// answer at once when nothing is left to resume (a vote below the quorum,
// a refusal), or after the resume, which it leaves to the resumes pool.
func (b *Bot) record(ctx context.Context, to replyTo, log *zap.Logger, ack func(),
	claim func(context.Context) (workflow.Claimed, error), answer func(context.Context, workflow.Approval, error)) {
	dctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	c, err := claim(dctx)
	cancel()
	ack()
	if err != nil || !c.Pending() {
		answer(ctx, c.Approval, err)
		return
	}
	b.resumes.push(job{run: func(ctx context.Context) {
		dctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
		a, err := b.approvals.Resume(dctx, c)
		cancel()
		answer(ctx, a, err)
	}, abandon: b.recordedAbandoned(to.within(c.Approval), log)})
}

// decided translates the outcome of a decision: the message update on
// success, a private explanation otherwise.
func (b *Bot) decided(ctx context.Context, to replyTo, id string, d workflow.Decision, a workflow.Approval, err error, log *zap.Logger) {
	b.metrics.decided(err, a)
	to, a, log, l := b.answering(ctx, to, id, a, log)
	switch workflow.ErrorCode(err) {
	case "":
		if err != nil {
			log.Error("decision failed", zap.Error(chat.Redacted(err)))
			b.tell(ctx, to, failureText(l, err), log)
			return
		}
		if a.Status == workflow.StatusPending {
			// An approval below the quorum: counted, and the request waits
			// for more.
			log.Info("vote counted", zap.String("decision", string(d.Action)), zap.String("progress", blocks.Progress(a)))
			b.updates.refresh(a)
			b.homes.refresh(a)
			b.tell(ctx, to, blocks.VoteText(a, d), log)
			return
		}
		recorded := d
		if a.Decision != nil {
			recorded = *a.Decision
		}
		log.Info("decided", zap.String("decision", string(recorded.Action)), zap.String("decided_by", recorded.DecidedBy), zap.String("status", string(a.Status)))
		b.updates.enqueue(a, true)
		b.homes.refresh(a)
		if to.home {
			b.tell(ctx, to, blocks.T(l, blocks.KDone, blocks.ReplyText(a), blocks.Escape(a.Title)), log)
		}
	case workflow.EFORBIDDEN:
		log.Info("decision refused", zap.Error(err))
		b.tell(ctx, to, blocks.ErrorText(l, err)+blocks.WhoMayDecide(a), log)
	case workflow.ECONFLICT, workflow.EEXPIRED, workflow.ECANCELLED, workflow.ENOTFOUND:
		b.tellTooLate(ctx, to, err, a, log)
	default:
		b.tell(ctx, to, blocks.ErrorText(l, err), log)
	}
}

// answering is where and how to answer an action on the approval with the
// ID, a as the action left it (a modal submission has no channel of its
// own: the approval's is read): the place, the approval, the logger
// naming its execution, and the language.
func (b *Bot) answering(ctx context.Context, to replyTo, id string, a workflow.Approval, log *zap.Logger) (replyTo, workflow.Approval, *zap.Logger, string) {
	if a.Channel == "" && to.channel == "" {
		a, _ = b.lookup(ctx, id)
	}
	return to.within(a), a, log.With(zap.String("execution_arn", a.ExecutionARN)), b.localeOf(a)
}

// tellTooLate answers an action on an approval that is gone, decided or
// closed meanwhile (err from the domain, a what it returned with it), and
// queues the update of its message if that still shows buttons.
func (b *Bot) tellTooLate(ctx context.Context, to replyTo, err error, a workflow.Approval, log *zap.Logger) {
	if workflow.ErrorCode(err) == workflow.ENOTFOUND {
		b.tell(ctx, to, blocks.T(b.cfg.Locale, blocks.KNotFound), log)
		return
	}
	current := errorApproval(err, a)
	b.updates.enqueue(current, false)
	b.tell(ctx, to, blocks.LateText(current, err), log)
}

// lookup reads an approval with the call timeout.
func (b *Bot) lookup(ctx context.Context, id string) (workflow.Approval, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	return b.approvals.Get(ctx, id)
}

// triggerBudget is how long after a click a modal may still be opened with
// its trigger ID (Slack allows 3 s).
const triggerBudget = 2800 * time.Millisecond

// openModal handles the buttons that open a modal (Approve with comment,
// Reject, Request changes, Hand over): the modal opens only for somebody
// who may decide a pending approval, within the click's 3-second trigger
// window. A menu's decision with nothing to confirm is decided at once,
// acked with ack once recorded.
func (b *Bot) openModal(ctx context.Context, c click, ack func()) {
	log := c.logger(b.log)
	to := c.replyTo()
	// Slack refuses the trigger 3 s after the click: past that, trying is
	// pointless, and failing early lets the person be told to click again.
	ctx2, cancel := context.WithDeadline(ctx, c.at.Add(triggerBudget))
	defer cancel()
	a, err := b.approvals.Get(ctx2, c.approvalID)
	if err == nil {
		a, err = b.approvals.ClickedOn(ctx2, a, c.on)
	}
	l := b.localeOf(a)
	switch {
	case workflow.ErrorCode(err) == workflow.ENOTFOUND:
		b.tell(ctx, to, blocks.T(l, blocks.KNotFound), log)
		return
	case workflow.ErrorCode(err) == workflow.EINVALID:
		log.Warn("click on another message than the approval's refused")
		b.tell(ctx, to.within(a), blocks.ErrorText(l, err), log)
		return
	case err != nil:
		log.Error("approval lookup failed", zap.Error(chat.Redacted(err)))
		b.tell(ctx, to, blocks.T(l, blocks.KTransient), log)
		return
	}
	to = to.within(a)
	log = log.With(zap.String("execution_arn", a.ExecutionARN))
	if a.Status != workflow.StatusPending {
		b.updates.enqueue(a, false)
		b.tell(ctx, to, blocks.LateText(a, nil), log)
		return
	}
	may := b.approvals.CanDecide(ctx2, a, c.user)
	if c.action == blocks.ActionWithdraw {
		may = mayWithdraw(a, c.user)
	}
	if may != nil {
		if workflow.ErrorCode(may) != workflow.EFORBIDDEN {
			log.Error("approver lookup failed", zap.Error(chat.Redacted(may)))
			b.tell(ctx, to, failureText(l, may), log)
			return
		}
		b.tell(ctx, to, blocks.ErrorText(l, may)+blocks.WhoMayDecide(a), log)
		return
	}
	if menuDecision(c.action) && blocks.SureText(a, c.action) == "" {
		// Picked from a menu, and nothing to confirm: decided at once.
		d, ok := menuPick(a, c.action)
		if !ok {
			b.tell(ctx, to, blocks.T(l, "why.unknown_action"), log)
			return
		}
		d.DecidedBy = c.user
		b.decide(ctx, to, a.ID, d, c.on, log, ack)
		return
	}
	view, ref, refusal := modalFor(a, c)
	if refusal != "" {
		b.tell(ctx, to, refusal, log)
		return
	}
	view.PrivateMetadata = ref.String()
	if _, err := b.api.OpenViewContext(ctx2, c.triggerID, view); err != nil {
		err = chat.NewAPIError("views.open", err)
		log.Warn("modal not opened", zap.Duration("since_click", time.Since(c.at)), zap.Error(err))
		text := blocks.T(l, blocks.KTransient)
		if code := chat.Code(err); code == "expired_trigger_id" || code == "exchanged_trigger_id" {
			text = blocks.T(l, blocks.KSlowClick)
		}
		b.tell(ctx, to, text, log)
	}
}

// modalFor is the modal the click c opens on the pending approval a and
// what its submission carries, or why it opens none.
func modalFor(a workflow.Approval, c click) (slack.ModalViewRequest, modalRef, string) {
	l := a.Locale
	ref := modalRef{id: a.ID, on: c.on, home: c.home, draft: workflow.NoDraft, locale: a.Locale}
	switch c.action {
	case blocks.ActionReject:
		ref.need = slices.Contains(a.Policy.RequireComment, workflow.ActionReject)
		return blocks.RejectModal(a), ref, ""
	case blocks.ActionRevise:
		if len(a.RevisionPresets) == 0 {
			return slack.ModalViewRequest{}, ref, blocks.T(l, "why.no_changes")
		}
		return blocks.ReviseModal(a), ref, ""
	case blocks.ActionDelegate:
		switch {
		case !a.Policy.AllowDelegation:
			return slack.ModalViewRequest{}, ref, blocks.T(l, "why.no_delegation")
		case slices.ContainsFunc(a.Votes, func(v workflow.Vote) bool { return v.UserID == c.user }):
			return slack.ModalViewRequest{}, ref, blocks.T(l, "why.delegator_voted")
		}
		return blocks.DelegateModal(a), ref, ""
	case blocks.ActionWithdraw:
		return blocks.WithdrawModal(a), ref, ""
	case blocks.ActionEdit:
		return editModalFor(a, c, ref)
	case blocks.ActionSkip:
		// From the menu, with confirm: "are you sure?" first.
		ref.action = c.action
		return blocks.SureModal(a, blocks.SureText(a, c.action)), ref, ""
	}
	if _, ok := blocks.PresetIndex(c.action); ok {
		ref.action = c.action
		return blocks.SureModal(a, blocks.SureText(a, c.action)), ref, ""
	}
	if c.draft != workflow.NoDraft && c.draft >= len(a.Drafts) {
		return slack.ModalViewRequest{}, ref, blocks.T(l, blocks.KNoSuchDraft)
	}
	ref.draft = c.draft
	ref.need = slices.Contains(a.Policy.RequireComment, workflow.ActionApprove)
	return blocks.ApproveModal(a, c.draft), ref, ""
}

// delegate hands an approval on, from a submitted Hand over modal, and
// acks it with ack once recorded: the message and its thread say so, the
// delegate's App Home lists it.
func (b *Bot) delegate(ctx context.Context, to replyTo, ref modalRef, delegate string, log *zap.Logger, ack func()) {
	log = log.With(zap.String("delegate", delegate))
	dctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	a, err := b.approvals.Delegate(dctx, ref.id, to.user, delegate, ref.on)
	cancel()
	ack() // the hand-over is recorded (or refused): the modal closes
	to, a, log, l := b.answering(ctx, to, ref.id, a, log)
	switch workflow.ErrorCode(err) {
	case "":
		if err != nil {
			log.Error("hand-over failed", zap.Error(chat.Redacted(err)))
			b.tell(ctx, to, failureText(l, err), log)
			return
		}
		log.Info("handed over")
		handed := a.Delegations[len(a.Delegations)-1]
		b.tellHandOver(a, handed, func(ctx context.Context) {
			if err := b.approvals.HandOverTold(ctx, a.ID, handed.At); err != nil {
				// A sweep posts the note again after its grace.
				log.Warn("hand-over note posted but not recorded so", zap.Error(chat.Redacted(err)))
			}
		})
		b.tell(ctx, to, blocks.T(l, blocks.KHandedTo, blocks.Escape(a.Title), blocks.Mention(delegate)), log)
	case workflow.EFORBIDDEN:
		log.Info("hand-over refused", zap.Error(err))
		b.tell(ctx, to, blocks.ErrorText(l, err)+blocks.WhoMayDecide(a), log)
	case workflow.ECONFLICT, workflow.EEXPIRED, workflow.ECANCELLED, workflow.ENOTFOUND:
		b.tellTooLate(ctx, to, err, a, log)
	default:
		// The domain's refusals name people with mentions it wrote itself.
		log.Info("hand-over refused", zap.Error(err))
		b.tell(ctx, to, blocks.ErrorText(l, err), log)
	}
}

// tellHandOver shows the hand-over d of a: the message refreshed, a note
// in its thread (posted, when set, runs once the note is posted), the
// delegate's App Home and those of the others concerned.
func (b *Bot) tellHandOver(a workflow.Approval, d workflow.Delegation, posted func(context.Context)) {
	b.updates.refresh(a)
	b.updates.notifyThen(a, blocks.DelegationNotice(a, d), posted)
	b.homes.publish(d.To, "")
	b.homes.refresh(a)
}

// command answers /approvals privately through the response URL.
func (b *Bot) command(ctx context.Context, envelopeID string, cmd slack.SlashCommand) {
	log := b.log.With(zap.String("envelope_id", envelopeID), zap.String("slack_user", cmd.UserID),
		zap.String("action", "command"))
	ctx2, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	var msg blocks.Message
	switch sub, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(cmd.Text)), " "); sub {
	case "", "pending":
		pending, err := b.approvals.PendingFor(ctx2, cmd.UserID, 1000)
		var unchecked *workflow.UncheckedError
		if err != nil && !errors.As(err, &unchecked) {
			log.Error("pending approvals not listed", zap.Error(chat.Redacted(err)))
			msg = blocks.Message{Text: blocks.T(b.cfg.Locale, blocks.KCmdPendingFailed)}
			break
		}
		msg = blocks.PendingMessage(b.cfg.Locale, pending, time.Now(), b.site.base(ctx2, b.cfg.CallTimeout))
		if unchecked != nil {
			log.Warn("pending approvals of some user groups not listed", zap.Strings("groups", unchecked.Groups), zap.Error(chat.Redacted(err)))
			msg = blocks.WithUnchecked(b.cfg.Locale, msg)
		}
	case "history":
		n, ok := historyCount(cmd.Text)
		if !ok {
			msg = blocks.HelpMessage(b.cfg.Locale, cmp.Or(cmd.Command, b.cfg.Command))
			break
		}
		history, err := b.approvals.DecidedBy(ctx2, cmd.UserID, n)
		if err != nil {
			log.Error("history not listed", zap.Error(chat.Redacted(err)))
			msg = blocks.Message{Text: blocks.T(b.cfg.Locale, blocks.KCmdHistoryFailed)}
			break
		}
		msg = blocks.HistoryMessage(b.cfg.Locale, history, b.site.base(ctx2, b.cfg.CallTimeout))
	default:
		msg = blocks.HelpMessage(b.cfg.Locale, cmp.Or(cmd.Command, b.cfg.Command))
	}
	b.answerCommand(ctx, log, cmd, msg)
}

// historyCount reads "history [N]": N from 1 to blocks.MaxHistory, default
// blocks.DefaultHistory.
func historyCount(text string) (int, bool) {
	fields := strings.Fields(text)
	switch len(fields) {
	case 1:
		return blocks.DefaultHistory, true
	case 2:
		n, err := strconv.Atoi(fields[1])
		return n, err == nil && n >= 1 && n <= blocks.MaxHistory
	}
	return 0, false
}

// answerCommand answers a slash command privately, through its response
// URL when it has one.
func (b *Bot) answerCommand(ctx context.Context, log *zap.Logger, cmd slack.SlashCommand, msg blocks.Message) {
	if cmd.ResponseURL == "" {
		b.tell(ctx, replyTo{user: cmd.UserID, channel: cmd.ChannelID}, msg.Text, log)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	opts := append([]slack.MsgOption{slack.MsgOptionResponseURL(cmd.ResponseURL, slack.ResponseTypeEphemeral)}, msg.Options()...)
	if _, _, _, err := b.api.SendMessageContext(ctx, "", opts...); err != nil {
		log.Warn("command answer not delivered", zap.Error(chat.Redacted(err)))
	}
}

// tell posts a private (ephemeral) message to the user beside the request,
// or shows it on their App Home. text is mrkdwn: mentions the bot wrote
// render.
func (b *Bot) tell(ctx context.Context, to replyTo, text string, log *zap.Logger) {
	if to.home && to.user != "" {
		b.homes.publish(to.user, text)
		return
	}
	if to.user == "" || to.channel == "" {
		log.Warn("nowhere to send a private answer", zap.String("answer", text))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	opts := []slack.MsgOption{slack.MsgOptionText(text, false)}
	if to.thread != "" {
		opts = append(opts, slack.MsgOptionTS(to.thread))
	}
	if err := b.postEphemeral(ctx, to.channel, to.user, opts...); err != nil {
		log.Warn("private answer not delivered", zap.Error(chat.NewAPIError("chat.postEphemeral", err)))
	}
}

// errorApproval is the approval a domain error is about, or fallback.
func errorApproval(err error, fallback workflow.Approval) workflow.Approval {
	var e *workflow.Error
	if errors.As(err, &e) && e.Approval != nil {
		return *e.Approval
	}
	return fallback
}

// mayWithdraw returns nil when user may withdraw a (they requested it),
// else the domain's EFORBIDDEN refusal.
func mayWithdraw(a workflow.Approval, user string) error {
	return workflow.Decision{Action: workflow.ActionWithdraw, DraftIndex: workflow.NoDraft, DecidedBy: user}.Validate(a)
}

// menuDecision reports whether a menu option decides (Skip, a preset)
// rather than opening a form.
func menuDecision(action string) bool {
	_, preset := blocks.PresetIndex(action)
	return action == blocks.ActionSkip || preset
}

// menuPick is the decision of a deciding action (menuDecision) on a,
// without who and when: a skip, or a change request with the preset.
func menuPick(a workflow.Approval, action string) (workflow.Decision, bool) {
	d := workflow.Decision{DraftIndex: workflow.NoDraft}
	if action == blocks.ActionSkip {
		d.Action = workflow.ActionSkip
		return d, true
	}
	i, ok := blocks.PresetIndex(action)
	if !ok || i >= len(a.RevisionPresets) {
		return d, false
	}
	d.Action, d.Preset = workflow.ActionRevise, a.RevisionPresets[i]
	return d, true
}

// editModalFor is the Edit & approve modal for the click c on a: the
// draft picked in the message's select, or the only draft Slack's input
// holds, prefilled; with several, a first step asks which.
func editModalFor(a workflow.Approval, c click, ref modalRef) (slack.ModalViewRequest, modalRef, string) {
	if !blocks.EditableDrafts(a) {
		if !a.AllowEdit {
			return slack.ModalViewRequest{}, ref, blocks.T(a.Locale, "why.no_edit")
		}
		return slack.ModalViewRequest{}, ref, blocks.T(a.Locale, blocks.KNotEditable)
	}
	editable := []int{}
	for i, d := range a.Drafts {
		if workflow.Editable(d) {
			editable = append(editable, i)
		}
	}
	switch {
	case c.draft >= 0 && c.draft < len(a.Drafts) && workflow.Editable(a.Drafts[c.draft]):
		ref.draft = c.draft
	case len(editable) == 1:
		ref.draft = editable[0]
	default:
		return blocks.EditPickModal(a), ref, ""
	}
	ref.need = slices.Contains(a.Policy.RequireComment, workflow.ActionApprove)
	return blocks.EditModal(a, ref.draft), ref, ""
}
