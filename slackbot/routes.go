package slackbot

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// Every entry point of the app. route is the only consumer of Socket Mode
// events; everything it does not list is acked, logged and ignored.
// Buttons work on a request message and on the clicker's own App Home.
//
//	interactive block_actions    approve, approve_draft_N, approve_picked
//	                             (the draft picked in pick_draft), skip   → decideClick
//	                             preset_N (a one-click change request)    → presetClick
//	                             approve_comment, approve_comment_draft_N,
//	                             reject, revise, delegate, edit, withdraw → openModal
//	                             more (overflow), changes (menu): the
//	                             option's value is one of the above;
//	                             skip and preset_N with confirm open the
//	                             "are you sure?" modal                   → openModal
//	                             pick_draft (choosing in the select)      → acked, nothing to do
//	interactive view_submission  approve, reject, revise, edit, withdraw,
//	                             sure                                     → submitModal (checked before the ack)
//	                             edit_pick (answered with the edit modal),
//	                             delegate (the delegate checked with
//	                             users.info)                              → submitModal, acked by the pool
//	slash_commands               /approvals [pending|history [N]|help]    → command
//	events_api                   app_home_opened (tab home)              → the App Home is published

// route acks every envelope first and hands the work to the pool, except a
// click or submission that decides: that is acked once its decision is
// recorded in the store (the claims pool records it), so that no
// acknowledged decision is lost with its replica. Modal submissions are
// answered in the ack, after cheap local checks. It never blocks for
// longer than one ack.
func (b *Bot) route(ev socketmode.Event) {
	b.arrived = time.Now()
	req := ev.Request
	b.count(ev)
	switch ev.Type {
	case socketmode.EventTypeInteractive:
		cb, ok := ev.Data.(slack.InteractionCallback)
		switch {
		case !ok:
			b.ignore(req, "interactive payload of an unexpected shape")
		case cb.Type == slack.InteractionTypeBlockActions:
			if !b.routeAction(req.EnvelopeID, cb) {
				b.ack(req.EnvelopeID, nil)
			}
		case cb.Type == slack.InteractionTypeViewSubmission:
			b.submitModal(req.EnvelopeID, cb)
		default:
			b.ignore(req, "interaction "+string(cb.Type))
		}
	case socketmode.EventTypeSlashCommand:
		b.ack(req.EnvelopeID, nil)
		if cmd, ok := ev.Data.(slack.SlashCommand); ok {
			b.pool.push(job{
				run:     func(ctx context.Context) { b.command(ctx, req.EnvelopeID, cmd) },
				abandon: b.commandAbandoned(req.EnvelopeID, cmd),
			})
		}
	case socketmode.EventTypeEventsAPI:
		b.ack(req.EnvelopeID, nil)
		b.routeEvent(req.EnvelopeID, ev.Data)
	case socketmode.EventTypeErrorBadMessage:
		bad, _ := ev.Data.(*socketmode.ErrorBadMessage)
		id := ""
		if bad != nil {
			id = envelopeID(bad.Message)
			b.ack(id, nil)
		}
		b.log.Warn("unreadable envelope ignored", zap.String("envelope_id", id))
	case socketmode.EventTypeConnecting:
		b.health.lost()
		b.log.Debug("connecting to slack")
	case socketmode.EventTypeConnected:
		if e, ok := ev.Data.(*socketmode.ConnectedEvent); ok && e.ConnectionCount > 0 {
			b.metrics.reconnected()
		}
		b.log.Info("connected to slack")
	case socketmode.EventTypeHello:
		b.health.hello()
		b.log.Debug("slack said hello")
	case socketmode.EventTypeDisconnect:
		b.log.Info("slack asked to reconnect")
	case socketmode.EventTypeConnectionError:
		b.health.lost()
		if e, ok := ev.Data.(*slack.ConnectionErrorEvent); ok {
			b.log.Warn("connecting to slack failed; retrying", zap.Int("attempt", e.Attempt),
				zap.Duration("backoff", e.Backoff), zap.Error(chat.Redacted(e.ErrorObj)))
		}
	case socketmode.EventTypeIncomingError:
		b.health.lost()
		if e, ok := ev.Data.(*slack.IncomingEventError); ok {
			b.log.Warn("slack connection read failed", zap.Error(chat.Redacted(e.ErrorObj)))
		}
	case socketmode.EventTypeErrorWriteFailed:
		if e, ok := ev.Data.(*socketmode.ErrorWriteFailed); ok {
			b.log.Warn("ack lost: write to slack failed", zap.Error(chat.Redacted(e.Cause)))
		}
	case socketmode.EventTypeInvalidAuth:
		b.health.lost()
		b.log.Error("slack refused the app token", zap.String("alert", alertSlackAuth))
	default:
		b.ignore(req, "event "+string(ev.Type))
	}
}

// count records an envelope by type, or a connection event.
func (b *Bot) count(ev socketmode.Event) {
	switch ev.Type {
	case socketmode.EventTypeConnecting, socketmode.EventTypeConnected, socketmode.EventTypeHello,
		socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError, socketmode.EventTypeInvalidAuth:
		b.metrics.socketEvent(string(ev.Type))
		return
	case socketmode.EventTypeErrorWriteFailed:
		b.metrics.socketEvent("write_error")
		return
	case socketmode.EventTypeErrorBadMessage:
		b.metrics.envelope("unreadable")
		return
	case socketmode.EventTypeSlashCommand, socketmode.EventTypeEventsAPI:
		b.metrics.envelope(string(ev.Type))
		return
	}
	if ev.Request == nil || ev.Request.EnvelopeID == "" {
		return
	}
	kind := "other"
	if cb, ok := ev.Data.(slack.InteractionCallback); ok && ev.Type == socketmode.EventTypeInteractive &&
		(cb.Type == slack.InteractionTypeBlockActions || cb.Type == slack.InteractionTypeViewSubmission) {
		kind = string(cb.Type)
	}
	b.metrics.envelope(kind)
}

// routeAction maps a button to its handler. It reports whether the
// handler acks the envelope (a decision, once recorded); route acks the
// others at once.
func (b *Bot) routeAction(envelopeID string, cb slack.InteractionCallback) (acks bool) {
	if len(cb.ActionCallback.BlockActions) == 0 {
		b.log.Warn("block action without actions ignored", zap.String("envelope_id", envelopeID))
		return false
	}
	act := cb.ActionCallback.BlockActions[0]
	c := click{
		envelopeID: envelopeID,
		user:       cb.User.ID,
		channel:    cmp.Or(cb.Channel.ID, cb.Container.ChannelID),
		thread:     cmp.Or(cb.Container.ThreadTs, cb.Message.ThreadTimestamp),
		triggerID:  cb.TriggerID,
		on:         requestMessage(cb),
		home:       onOwnHome(cb),
		approvalID: cmp.Or(act.Value, act.BlockID),
		action:     act.ActionID,
		draft:      workflow.NoDraft,
		at:         time.Now(),
	}
	log := c.logger(b.log)
	if !plausibleID(c.approvalID) {
		log.Warn("button without an approval ID ignored")
		return false
	}
	if c.on == (workflow.MessageRef{}) && !c.home {
		// Request buttons are only ever on a channel message and on the
		// App Home the bot publishes for each person, and decide only the
		// approval of the message they are on, or one listed on the
		// clicker's own App Home.
		log.Warn("request button outside a request message and the clicker's App Home ignored",
			zap.String("container", cb.Container.Type), zap.String("view_type", string(cb.View.Type)))
		to := replyTo{user: c.user, channel: c.channel, thread: c.thread, home: cb.Container.Type == "view" && cb.View.Type == slack.VTHomeTab}
		b.pool.push(job{run: func(ctx context.Context) { b.tell(ctx, to, blocks.T(b.cfg.Locale, blocks.KNotOnRequest), log) }})
		return false
	}
	if act.Type == slack.ActionType(slack.OptTypeStatic) || act.Type == slack.ActionType(slack.METOverflow) {
		// A menu: the option picked names the action.
		c.action = act.SelectedOption.Value
		if act.ActionID == blocks.ActionPickDraft {
			log.Debug("draft picked; the Approve button reads it")
			return false
		}
		log = c.logger(b.log)
	}
	d := workflow.Decision{DraftIndex: workflow.NoDraft}
	switch {
	case act.ActionID == blocks.ActionApprove:
		d.Action = workflow.ActionApprove
	case strings.HasPrefix(act.ActionID, blocks.ActionApproveDraft):
		n, ok := draftOf(act.ActionID, blocks.ActionApproveDraft)
		if !ok {
			log.Warn("unknown draft button ignored")
			return false
		}
		d.Action, d.DraftIndex = workflow.ActionApprove, n
	case c.action == blocks.ActionApprovePicked:
		n, ok := pickedDraft(cb)
		if !ok {
			// Nothing picked yet: the approve modal asks which.
			c.action = blocks.ActionApproveComment
			b.pool.pushFront(job{run: func(ctx context.Context) { b.openModal(ctx, c, acked) }, abandon: b.openAbandoned(c)})
			return false
		}
		d.Action, d.DraftIndex = workflow.ActionApprove, n
	case act.ActionID == blocks.ActionSkip:
		d.Action = workflow.ActionSkip
	case strings.HasPrefix(act.ActionID, blocks.ActionPreset):
		if _, ok := blocks.PresetIndex(act.ActionID); !ok {
			log.Warn("unknown preset button ignored")
			return false
		}
		ack := b.ackOnce(envelopeID)
		b.claims.push(job{run: func(ctx context.Context) { defer ack(); b.presetClick(ctx, c, ack) }, abandon: acking(ack, b.clickAbandoned(c))})
		return true
	case strings.HasPrefix(act.ActionID, blocks.ActionApproveCommentDraft):
		n, ok := draftOf(act.ActionID, blocks.ActionApproveCommentDraft)
		if !ok {
			log.Warn("unknown draft button ignored")
			return false
		}
		c.draft = n
		b.pool.pushFront(job{run: func(ctx context.Context) { b.openModal(ctx, c, acked) }, abandon: b.openAbandoned(c)})
		return false
	case menuDecision(c.action):
		// Decided at once unless the request asks "are you sure?" first:
		// acked once recorded, or once the modal is opened.
		ack := b.ackOnce(envelopeID)
		b.claims.pushFront(job{run: func(ctx context.Context) { defer ack(); b.openModal(ctx, c, ack) }, abandon: acking(ack, b.openAbandoned(c))})
		return true
	case opensModal(c.action):
		if c.action == blocks.ActionEdit {
			if n, ok := pickedDraft(cb); ok {
				c.draft = n
			}
		}
		b.pool.pushFront(job{run: func(ctx context.Context) { b.openModal(ctx, c, acked) }, abandon: b.openAbandoned(c)})
		return false
	default:
		log.Warn("unknown button ignored")
		return false
	}
	ack := b.ackOnce(envelopeID)
	b.claims.push(job{run: func(ctx context.Context) { defer ack(); b.decideClick(ctx, c, d, ack) }, abandon: acking(ack, b.clickAbandoned(c))})
	return true
}

// acked is the ack of work whose envelope route acked already.
func acked() {}

// ackOnce returns a function that acks the envelope being routed (with no
// payload) the first time it is called, from any goroutine.
func (b *Bot) ackOnce(envelopeID string) func() {
	arrived := b.arrived
	var once sync.Once
	return func() { once.Do(func() { b.ackSince(envelopeID, nil, arrived) }) }
}

// opensModal reports whether the action opens a modal (or, for a menu
// decision, may: see openModal).
func opensModal(action string) bool {
	switch action {
	case blocks.ActionApproveComment, blocks.ActionReject, blocks.ActionRevise, blocks.ActionDelegate,
		blocks.ActionEdit, blocks.ActionWithdraw, blocks.ActionSkip:
		return true
	}
	return menuDecision(action)
}

// pickedDraft reads the draft picked in the request's select of drafts
// from the click's state: the message's, or the App Home view's.
func pickedDraft(cb slack.InteractionCallback) (int, bool) {
	values := map[string]map[string]slack.BlockAction{}
	if cb.BlockActionState != nil {
		values = cb.BlockActionState.Values
	}
	if len(values) == 0 && cb.View.State != nil {
		values = cb.View.State.Values
	}
	block := ""
	if len(cb.ActionCallback.BlockActions) > 0 {
		block = cb.ActionCallback.BlockActions[0].BlockID
	}
	v, ok := values[block][blocks.ActionPickDraft]
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v.SelectedOption.Value)
	return n, err == nil && n >= 0 && n < workflow.MaxDrafts
}

// draftOf reads the draft index that follows prefix in a button's action ID.
func draftOf(actionID, prefix string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(actionID, prefix))
	return n, err == nil && n >= 0 && n < workflow.MaxDrafts
}

// submitModal checks a submitted modal before acking it: errors go back
// in the ack and keep the modal open; a valid submission closes it and
// is decided (or handed over, or withdrawn) by the pool. The Hand over
// modal's delegate is checked with Slack, and Edit & approve's first step
// answered with its second, by the pool, which acks them within Slack's
// 3 seconds.
func (b *Bot) submitModal(envelopeID string, cb slack.InteractionCallback) {
	log := b.log.With(zap.String("envelope_id", envelopeID), zap.String("slack_user", cb.User.ID),
		zap.String("action", cb.View.CallbackID))
	switch cb.View.CallbackID {
	case blocks.CallbackApprove, blocks.CallbackReject, blocks.CallbackRevise, blocks.CallbackDelegate,
		blocks.CallbackEdit, blocks.CallbackEditPick, blocks.CallbackWithdraw, blocks.CallbackSure:
	default:
		b.ack(envelopeID, nil)
		log.Warn("submission of an unknown view ignored")
		return
	}
	sub := readSubmission(cb.View, cb.User.ID)
	if sub.errs != nil {
		b.ack(envelopeID, slack.NewErrorsViewSubmissionResponse(sub.errs))
		return
	}
	ref := sub.ref
	if !plausibleID(ref.id) {
		b.ack(envelopeID, nil)
		log.Warn("submission without an approval ID ignored")
		return
	}
	to := replyTo{user: cb.User.ID, channel: ref.on.Channel, home: ref.home}
	log = log.With(zap.String("approval_id", ref.id))
	arrived := b.arrived
	// Work left undone at shutdown: a submission not yet acked is acked
	// (the modal closes) and its person told, as for any other.
	abandoned := func(ctx context.Context, started bool) {
		if !started {
			b.ackSince(envelopeID, nil, arrived)
		}
		b.submitAbandoned(to, ref.id, log)(ctx, started)
	}
	switch cb.View.CallbackID {
	case blocks.CallbackEditPick:
		b.pool.pushFront(job{run: func(ctx context.Context) { b.editPicked(ctx, envelopeID, arrived, ref, log) }, abandon: abandoned})
		return
	case blocks.CallbackDelegate:
		ack := b.ackOnce(envelopeID)
		b.pool.pushFront(job{run: func(ctx context.Context) {
			if b.delegateChecked(ctx, envelopeID, arrived, ref, sub.delegate, log) {
				defer ack()
				b.delegate(ctx, to, ref, sub.delegate, log, ack)
			}
		}, abandon: abandoned})
		return
	}
	// A valid submission decides: it is acked (the modal closes) once the
	// decision is recorded.
	ack := b.ackOnce(envelopeID)
	var run func(ctx context.Context)
	switch cb.View.CallbackID {
	case blocks.CallbackWithdraw:
		reason := sub.decision.Text
		run = func(ctx context.Context) { b.withdraw(ctx, to, ref, cb.User.ID, reason, log, ack) }
	case blocks.CallbackSure:
		c := click{user: cb.User.ID, approvalID: ref.id, action: ref.action, on: ref.on, home: ref.home, draft: workflow.NoDraft}
		run = func(ctx context.Context) { b.sureSubmitted(ctx, to, c, log, ack) }
	default:
		d := sub.decision
		d.DecidedBy = cb.User.ID
		run = func(ctx context.Context) { b.decide(ctx, to, ref.id, d, ref.on, log, ack) }
	}
	b.claims.push(job{run: func(ctx context.Context) { defer ack(); run(ctx) }, abandon: acking(ack, b.submitAbandoned(to, ref.id, log))})
}

// ignore acks an envelope the app does not handle.
func (b *Bot) ignore(req *socketmode.Request, what string) {
	if req == nil {
		return
	}
	b.ack(req.EnvelopeID, nil)
	b.log.Debug("envelope ignored", zap.String("envelope_id", req.EnvelopeID), zap.String("what", what))
}

// envelopeID digs the envelope ID out of a message slack-go could not
// parse, so it can still be acked.
func envelopeID(raw json.RawMessage) string {
	var env struct {
		EnvelopeID string `json:"envelope_id"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.EnvelopeID
}

// requestMessage is the channel message a button was clicked on: the
// container's message_ts, which is the message itself also when it is a
// reply in a thread. Ephemeral messages and views are no request message.
func requestMessage(cb slack.InteractionCallback) workflow.MessageRef {
	c := cb.Container
	if c.Type != "message" || c.IsEphemeral || c.MessageTs == "" {
		return workflow.MessageRef{}
	}
	return workflow.MessageRef{Channel: cmp.Or(c.ChannelID, cb.Channel.ID), TS: c.MessageTs}
}

// onOwnHome reports whether a button was clicked on the App Home the bot
// published for the clicker: a view container whose view is a home tab
// with the bot's callback ID, published for that very user (HomeView puts
// the user in private_metadata), and the view Slack says was clicked.
// Slack shows a Home tab only to its user; the check keeps a button that
// ends up anywhere else from deciding.
func onOwnHome(cb slack.InteractionCallback) bool {
	return cb.Container.Type == "view" && cb.View.Type == slack.VTHomeTab && cb.View.CallbackID == blocks.HomeCallback &&
		cb.User.ID != "" && cb.View.PrivateMetadata == cb.User.ID && cb.Container.ViewID == cb.View.ID
}

func plausibleID(id string) bool { return id != "" && len(id) <= 100 }
