package dynamo

import (
	"context"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// The changes of the domain (workflow.Approval.Claim, …) applied through
// Update, as the Service applies them: the tests of the conditional
// writes call them by name.

func (s *Store) Claim(ctx context.Context, id string, d workflow.Decision, now time.Time) (workflow.Approval, error) {
	return s.Update(ctx, id, func(a *workflow.Approval) error { return a.Claim(d, now) })
}

func (s *Store) Reclaim(ctx context.Context, id string, claimedAt, now time.Time) (workflow.Approval, error) {
	return s.Update(ctx, id, func(a *workflow.Approval) error { return a.Reclaim(claimedAt, now) })
}

func (s *Store) Finish(ctx context.Context, id string, status workflow.Status, now time.Time) (workflow.Approval, error) {
	return s.Update(ctx, id, func(a *workflow.Approval) error { return a.Finish(status, now) })
}

func (s *Store) Cancel(ctx context.Context, id string, c workflow.Cancellation, now time.Time) (workflow.Approval, error) {
	return s.Update(ctx, id, func(a *workflow.Approval) error { return a.Cancel(c, now) })
}

func (s *Store) SetMessage(ctx context.Context, id, channel, ts string) (workflow.Approval, error) {
	return s.Update(ctx, id, func(a *workflow.Approval) error { return a.SetMessage(channel, ts, t0) })
}

func (s *Store) MarkMessageSynced(ctx context.Context, id string) error {
	_, err := s.Update(ctx, id, func(a *workflow.Approval) error { return a.MarkMessageSynced() })
	return err
}

func (s *Store) MessageFailed(ctx context.Context, id string, now time.Time, p workflow.MessageRetry) (workflow.Approval, error) {
	return s.Update(ctx, id, func(a *workflow.Approval) error { return a.MessageFailed(now, p) })
}
