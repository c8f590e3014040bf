package slackbot

import (
	"context"
	"math/rand/v2"
	"time"

	"go.uber.org/zap"
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

// sweepOnce completes stale claims and expires overdue approvals, then
// queues the update of every final approval whose message is stale: what a
// Slack outage or a crash left behind, and the expiries just made. Each
// call is bounded by CallTimeout, not by the interval: the next sweep
// starts only after this one ends, and a budget of one interval cut off a
// resume between its claim and its call on a busy machine, leaving the
// claim to wait a whole lease.
func (b *Bot) sweepOnce(ctx context.Context) {
	recoverCtx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	rep, err := b.approvals.Recover(recoverCtx)
	cancel()
	if err != nil {
		b.log.Warn("recovery sweep failed", zap.Error(safeErr(err)))
	}
	if rep.Resumed+rep.Expired+rep.Failed > 0 {
		b.log.Info("recovery sweep", zap.Int("resumed", rep.Resumed), zap.Int("expired", rep.Expired), zap.Int("failed", rep.Failed))
	}
	ctx, cancel = context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	stale, err := b.approvals.Unsynced(ctx, 100)
	if err != nil {
		b.log.Warn("listing stale messages failed", zap.Error(safeErr(err)))
		return
	}
	now := time.Now()
	for _, a := range stale {
		if b.cfg.SweepGrace > 0 && now.Sub(a.ClosedAt) < b.cfg.SweepGrace && (a.Decision == nil || a.Decision.DecidedBy != "") {
			continue
		}
		b.updates.enqueue(a, false)
	}
}
