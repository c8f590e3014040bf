package slackbot

import (
	"context"
	"time"

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
	// Claim records the decision, made on the message on, durably (the
	// approval claimed, or a vote counted) without resuming anything;
	// Resume then resumes the execution and records the outcome, exactly
	// once. Together they are DecideOn. Alongside most errors Claim returns
	// the approval as it stands (Claimed.Approval); with one, nothing was
	// recorded.
	Claim(ctx context.Context, id string, d workflow.Decision, on workflow.MessageRef) (workflow.Claimed, error)
	Resume(ctx context.Context, c workflow.Claimed) (workflow.Approval, error)
	// Delegate hands the approval from the person from to the person to,
	// from a button on the message on (zero: from the App Home or a modal
	// opened there), and returns the approval as it now stands, also
	// alongside most errors (EINVALID, EFORBIDDEN, ECONFLICT, …).
	Delegate(ctx context.Context, id, from, to string, on workflow.MessageRef) (workflow.Approval, error)
	// HandOverTold records that the note of the approval's hand-over made
	// at at is posted in its thread (otherwise a sweep posts it).
	HandOverTold(ctx context.Context, id string, at time.Time) error
	// ClaimWithdrawal records that the requester user takes the pending
	// approval back, from the message on (zero: the App Home), as Claim
	// records a decision (EFORBIDDEN for anybody else); Resume fails the
	// execution.
	ClaimWithdrawal(ctx context.Context, id, user, reason string, on workflow.MessageRef) (workflow.Claimed, error)
	// ClaimRequesterNotice claims the one direct message the requester of
	// the final approval gets; true for the one caller that sends it.
	ClaimRequesterNotice(ctx context.Context, id string) (workflow.Approval, bool, error)
	// RequestedBy lists the pending approvals user asked for, oldest first.
	RequestedBy(ctx context.Context, user string, limit int) ([]workflow.Approval, error)
	// PendingFor lists the pending approvals user may decide, oldest first,
	// whole. With a *workflow.UncheckedError it lists all but those of the
	// user groups whose members could not be looked up.
	PendingFor(ctx context.Context, user string, limit int) ([]workflow.Approval, error)
	// DecidedBy returns up to limit of user's latest acts (votes,
	// decisions, hand-overs), one per approval, newest first.
	DecidedBy(ctx context.Context, user string, limit int) ([]workflow.HistoryEntry, error)
	// Watch records that user has their App Home in view; Watchers lists
	// who has; Concerned lists the people whose Home lists (or listed) a.
	Watch(ctx context.Context, user string) error
	Watchers(ctx context.Context) ([]string, error)
	Concerned(ctx context.Context, a workflow.Approval) []string
	// ExportAudit calls fn with every audit event from since to until, in
	// time order.
	ExportAudit(ctx context.Context, since, until time.Time, fn func(workflow.AuditEvent) error) error
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
