package slackbot

import "context"

// updatedElsewhere reports whether j's message already shows the outcome,
// updated by another replica since j was queued. Every replica's sweeper
// queues every stale message, so while Slack holds updates back the same
// message waits in several outboxes; checking just before the call keeps
// them from spending Slack's allowance twice. Jobs with a thread reply
// belong to the replica that decided and are not checked; a failed read
// says no.
func (u *updater) updatedElsewhere(ctx context.Context, j *updateJob) bool {
	u.mu.Lock()
	own := j.reply
	u.mu.Unlock()
	if own {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	defer cancel()
	a, err := u.approvals.Get(ctx, j.a.ID)
	return err == nil && a.MessageSynced
}
