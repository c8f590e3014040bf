package slackbot

import (
	"context"

	"github.com/sfnapprovals/approvals/workflow"
)

// Approvals is what the bot needs from the domain. *workflow.Service
// satisfies it; errors are workflow errors (see workflow.ErrorCode).
type Approvals interface {
	// Get returns the approval with the ID, or an ENOTFOUND error.
	Get(ctx context.Context, id string) (workflow.Approval, error)
	// CanDecide returns nil if user may decide a, an EFORBIDDEN error
	// explaining why not, or a lookup failure.
	CanDecide(ctx context.Context, a workflow.Approval, user string) error
	// Decide applies the decision exactly once and returns the approval as it
	// now stands, also alongside most errors.
	Decide(ctx context.Context, id string, d workflow.Decision) (workflow.Approval, error)
	// PendingFor lists the pending approvals user may decide, oldest first.
	PendingFor(ctx context.Context, user string, limit int) ([]workflow.Approval, error)
	// Recover completes stale claims and expires approvals past their
	// deadline.
	Recover(ctx context.Context) (workflow.RecoverReport, error)
	// Unsynced lists final approvals whose message does not show the outcome.
	Unsynced(ctx context.Context, limit int) ([]workflow.Approval, error)
	// MessageSynced records that the message shows the final status.
	MessageSynced(ctx context.Context, id string) error
}
