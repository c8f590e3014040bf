package slackbot

import (
	"context"
	"time"
)

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
