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
	// ClickedOn checks a click on the message on against a: an approval
	// with no recorded message records on. It returns a as it now stands.
	ClickedOn(ctx context.Context, a workflow.Approval, on workflow.MessageRef) (workflow.Approval, error)
	// DecideOn applies the decision, made on the message on, exactly once
	// and returns the approval as it now stands, also alongside most errors.
	DecideOn(ctx context.Context, id string, d workflow.Decision, on workflow.MessageRef) (workflow.Approval, error)
	// Delegate hands the approval from the person from to the person to,
	// from a button on the message on (zero: from the App Home or a modal
	// opened there), and returns the approval as it now stands, also
	// alongside most errors (EINVALID, EFORBIDDEN, ECONFLICT, …).
	Delegate(ctx context.Context, id, from, to string, on workflow.MessageRef) (workflow.Approval, error)
	// Withdraw takes the pending approval back for its requester user,
	// from the message on (zero: the App Home), and returns it as it now
	// stands, also alongside most errors (EFORBIDDEN for anybody else).
	Withdraw(ctx context.Context, id, user, reason string, on workflow.MessageRef) (workflow.Approval, error)
	// ClaimRequesterNotice claims the one direct message the requester of
	// the final approval gets; true for the one caller that sends it.
	ClaimRequesterNotice(ctx context.Context, id string) (workflow.Approval, bool, error)
	// RequestedBy lists the pending approvals user asked for, oldest first.
	RequestedBy(ctx context.Context, user string, limit int) ([]workflow.Approval, error)
	// PendingFor lists the pending approvals user may decide, oldest first.
	PendingFor(ctx context.Context, user string, limit int) ([]workflow.Approval, error)
	// DecidedBy returns up to limit of user's latest acts (votes,
	// decisions, hand-overs), one per approval, newest first.
	DecidedBy(ctx context.Context, user string, limit int) ([]workflow.HistoryEntry, error)
	// Recover completes stale claims, does the deadline lifecycle's due
	// steps (reminders, escalations, onDeadline decisions) and expires
	// approvals past their deadline; the report says what to post.
	Recover(ctx context.Context) (workflow.RecoverReport, error)
	// Unsynced lists final approvals whose message does not show the
	// outcome and whose update is due, as workflow.Approval.Listed.
	Unsynced(ctx context.Context, limit int) ([]workflow.Approval, error)
	// MessageSynced records that the message shows the final status.
	MessageSynced(ctx context.Context, id string) error
	// MessageFailed records a failed update of the message, which backs
	// it off (or gives it up) and returns the approval as stored.
	MessageFailed(ctx context.Context, id string) (workflow.Approval, error)
}
