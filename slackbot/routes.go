package slackbot

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"
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
//	interactive block_actions    approve, approve_draft_N, skip          → decideClick
//	                             approve_comment, approve_comment_draft_N,
//	                             reject, revise, delegate                → openModal
//	interactive view_submission  approve, reject, revise, delegate       → submitModal (checked before the ack)
//	slash_commands               /approvals [pending|history [N]|help]    → command
//	events_api                   app_home_opened (tab home)              → the App Home is published

// route acks every envelope first and hands the work to the pool; only
// modal submissions are answered in the ack, after cheap local checks.
// It never blocks for longer than one ack.
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
			b.ack(req.EnvelopeID, nil)
			b.routeAction(req.EnvelopeID, cb)
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

// routeAction maps a button to its handler.
func (b *Bot) routeAction(envelopeID string, cb slack.InteractionCallback) {
	if len(cb.ActionCallback.BlockActions) == 0 {
		b.log.Warn("block action without actions ignored", zap.String("envelope_id", envelopeID))
		return
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
		return
	}
	if c.on == (workflow.MessageRef{}) && !c.home {
		// Request buttons are only ever on a channel message and on the
		// App Home the bot publishes for each person, and decide only the
		// approval of the message they are on, or one listed on the
		// clicker's own App Home.
		log.Warn("request button outside a request message and the clicker's App Home ignored",
			zap.String("container", cb.Container.Type), zap.String("view_type", string(cb.View.Type)))
		to := replyTo{user: c.user, channel: c.channel, thread: c.thread, home: cb.Container.Type == "view" && cb.View.Type == slack.VTHomeTab}
		b.pool.push(job{run: func(ctx context.Context) { b.tell(ctx, to, blocks.TextNotOnRequest, log) }})
		return
	}
	d := workflow.Decision{DraftIndex: workflow.NoDraft}
	switch {
	case act.ActionID == blocks.ActionApprove:
		d.Action = workflow.ActionApprove
	case strings.HasPrefix(act.ActionID, blocks.ActionApproveDraft):
		n, ok := draftOf(act.ActionID, blocks.ActionApproveDraft)
		if !ok {
			log.Warn("unknown draft button ignored")
			return
		}
		d.Action, d.DraftIndex = workflow.ActionApprove, n
	case act.ActionID == blocks.ActionSkip:
		d.Action = workflow.ActionSkip
	case strings.HasPrefix(act.ActionID, blocks.ActionApproveCommentDraft):
		n, ok := draftOf(act.ActionID, blocks.ActionApproveCommentDraft)
		if !ok {
			log.Warn("unknown draft button ignored")
			return
		}
		c.draft = n
		fallthrough
	case act.ActionID == blocks.ActionApproveComment, act.ActionID == blocks.ActionReject, act.ActionID == blocks.ActionRevise, act.ActionID == blocks.ActionDelegate:
		b.pool.pushFront(job{run: func(ctx context.Context) { b.openModal(ctx, c) }, abandon: b.openAbandoned(c)})
		return
	default:
		log.Warn("unknown button ignored")
		return
	}
	b.pool.push(job{run: func(ctx context.Context) { b.decideClick(ctx, c, d) }, abandon: b.clickAbandoned(c)})
}

// draftOf reads the draft index that follows prefix in a button's action ID.
func draftOf(actionID, prefix string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(actionID, prefix))
	return n, err == nil && n >= 0 && n < workflow.MaxDrafts
}

// submitModal checks a submitted modal before acking it: errors go back
// in the ack and keep the modal open; a valid submission closes it and
// is decided (or handed over) by the pool.
func (b *Bot) submitModal(envelopeID string, cb slack.InteractionCallback) {
	log := b.log.With(zap.String("envelope_id", envelopeID), zap.String("slack_user", cb.User.ID),
		zap.String("action", cb.View.CallbackID))
	switch cb.View.CallbackID {
	case blocks.CallbackApprove, blocks.CallbackReject, blocks.CallbackRevise, blocks.CallbackDelegate:
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
	b.ack(envelopeID, nil)
	ref := sub.ref
	if !plausibleID(ref.id) {
		log.Warn("submission without an approval ID ignored")
		return
	}
	to := replyTo{user: cb.User.ID, channel: ref.on.Channel, home: ref.home}
	log = log.With(zap.String("approval_id", ref.id))
	if cb.View.CallbackID == blocks.CallbackDelegate {
		b.pool.push(job{run: func(ctx context.Context) { b.delegate(ctx, to, ref, sub.delegate, log) }, abandon: b.submitAbandoned(to, ref.id, log)})
		return
	}
	d := sub.decision
	d.DecidedBy = cb.User.ID
	b.pool.push(job{run: func(ctx context.Context) { b.decide(ctx, to, ref.id, d, ref.on, log) }, abandon: b.submitAbandoned(to, ref.id, log)})
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
