package slackbot

import (
	"context"
	"math/rand/v2"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// sweep runs sweepOnce at start and then every SweepInterval ±25% until
// ctx is done. Every replica sweeps; the store's conditional writes keep
// that safe.
func (b *Bot) sweep(ctx context.Context) {
	for {
		b.sweepOnce(ctx)
		t := time.NewTimer(time.Duration(float64(b.cfg.SweepInterval) * (0.75 + rand.Float64()/2)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// sweepBatch bounds the message updates one sweep queues. Records whose
// update failed wait for their own retry time, so the next sweep reaches
// the ones behind them.
const sweepBatch = 100

// sweepOnce completes stale claims, does the deadline lifecycle's due steps
// (see lifecycle), expires overdue approvals and closes those whose
// execution ended unnoticed, then queues the update of the
// final approvals whose message is stale and due: what a Slack outage or a
// crash left behind, and the expiries just made. The approvals it closed
// because their execution ended also get their thread reply, as a decision
// does. Recovery stops starting new approvals when the sweep's budget ends
// (the longer of the sweep interval and CallTimeout: a budget of one short
// interval cut every sweep off on a busy machine), but each approval it
// started is carried through (workflow.Service.Recover).
func (b *Bot) sweepOnce(ctx context.Context) {
	sweepCtx, cancel := context.WithTimeout(ctx, max(b.cfg.SweepInterval, b.cfg.CallTimeout))
	defer cancel()
	rep, err := b.approvals.Recover(sweepCtx)
	failed := err != nil && ctx.Err() == nil
	if failed {
		b.log.Warn("recovery sweep failed", zap.Error(chat.Redacted(err)))
	}
	if rep.Resumed+rep.Expired+rep.Failed+len(rep.Closed) > 0 {
		b.log.Info("recovery sweep", zap.Int("resumed", rep.Resumed), zap.Int("expired", rep.Expired),
			zap.Int("closed", len(rep.Closed)), zap.Int("executions_checked", rep.Checked), zap.Int("failed", rep.Failed))
	}
	for _, err := range rep.CheckErrors {
		b.log.Warn("execution check failed; it is tried again later", zap.Error(chat.Redacted(err)))
	}
	b.lifecycle(rep)
	for _, a := range rep.Closed {
		b.log.Info("request closed: its execution ended unnoticed", zap.String("approval_id", a.ID),
			zap.String("execution_arn", a.ExecutionARN), zap.String("reason", a.Cancellation.Reason))
		b.updates.enqueue(a, true)
		b.homes.refresh(a)
	}
	if rep.Expired > 0 {
		b.log.Warn("approvals expired unanswered", zap.Int("expired", rep.Expired), zap.String("alert", alertExpired))
	}
	queued := 0
	defer func() { b.metrics.sweep(rep, failed, queued, time.Now()) }()
	listCtx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	stale, err := b.approvals.Unsynced(listCtx, sweepBatch)
	if err != nil {
		failed = failed || ctx.Err() == nil
		b.log.Warn("listing stale messages failed", zap.Error(chat.Redacted(err)))
		return
	}
	now := time.Now()
	for _, a := range stale {
		if b.cfg.SweepGrace > 0 && now.Sub(a.ClosedAt) < b.cfg.SweepGrace && (a.Decision == nil || a.Decision.DecidedBy != "") {
			continue
		}
		if b.updates.enqueueListed(a) {
			queued++
		}
	}
}

// lifecycle posts what the deadline lifecycle did in this sweep, which the
// domain recorded (once, on one replica) before reporting it: a reminder
// mentioning who may still decide and an escalation mentioning escalateTo,
// in the request's thread, with the message updated to show the step; and
// the outcome of an onDeadline decision, as after any decision.
func (b *Bot) lifecycle(rep workflow.RecoverReport) {
	for _, a := range rep.Escalated {
		b.log.Info("request escalated", zap.String("approval_id", a.ID), zap.String("execution_arn", a.ExecutionARN))
		b.updates.notify(a, blocks.EscalationNotice(a))
		b.updates.refresh(a)
		b.homes.refresh(a)
	}
	for _, a := range rep.Reminded {
		b.log.Info("approvers reminded", zap.String("approval_id", a.ID), zap.String("execution_arn", a.ExecutionARN))
		b.updates.notify(a, blocks.ReminderNotice(a))
		b.updates.refresh(a)
	}
	for _, h := range rep.HandedOver {
		// The replica that recorded the hand-over did not post its note.
		a := h.Approval
		b.log.Info("hand-over told for a replica that did not", zap.String("approval_id", a.ID),
			zap.String("execution_arn", a.ExecutionARN), zap.String("delegate", h.Delegation.To))
		b.tellHandOver(a, h.Delegation, nil)
	}
	for _, a := range rep.Completed {
		// A replica recorded the decision and died before resuming it.
		b.log.Info("decision completed for a replica that stopped", zap.String("approval_id", a.ID),
			zap.String("execution_arn", a.ExecutionARN), zap.String("status", string(a.Status)))
		b.updates.enqueue(a, true)
		b.homes.refresh(a)
	}
	for _, a := range rep.Decided {
		b.log.Info("decided at the deadline", zap.String("approval_id", a.ID), zap.String("execution_arn", a.ExecutionARN),
			zap.String("decision", string(a.Decision.Action)), zap.String("status", string(a.Status)))
		b.updates.enqueue(a, true)
		b.homes.refresh(a)
	}
}
