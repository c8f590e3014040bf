package blocks

import (
	"github.com/sfnapprovals/approvals/workflow"
)

// LateText tells somebody who clicked an approval that is no longer
// pending what became of it.
func LateText(a workflow.Approval, err error) string {
	l := a.Locale
	switch {
	case a.Status == workflow.StatusCancelled:
		return CancelledLate(a)
	case a.Status == workflow.StatusExpired:
		return T(l, KLateExpired)
	case a.Status == workflow.StatusDecided && DecidedByDeadline(a) && a.Decision.Action == workflow.ActionSkip:
		return T(l, KLateDeadlineSkip, Date(l, a.Decision.DecidedAt))
	case a.Status == workflow.StatusDecided && DecidedByDeadline(a):
		return T(l, KLateDeadlineReject, Date(l, a.Decision.DecidedAt))
	case a.Status == workflow.StatusDecided && a.Decision != nil:
		return T(l, KLateDecided, Mention(a.Decision.DecidedBy), verb(a), Date(l, a.Decision.DecidedAt))
	case err != nil && workflow.ErrorCode(err) != workflow.ECONFLICT:
		return ErrorText(l, err)
	}
	return T(l, KLateBusy)
}

func verb(a workflow.Approval) string {
	l := a.Locale
	switch a.Decision.Action {
	case workflow.ActionApprove:
		if i := ChosenDraft(a); i != nil {
			return T(l, KVerbApprovedDraft, *i+1)
		}
		return T(l, KVerbApproved)
	case workflow.ActionReject:
		return T(l, KVerbRejected)
	case workflow.ActionRevise:
		return T(l, KVerbRevise)
	case workflow.ActionSkip:
		return T(l, KVerbSkipped)
	case workflow.ActionWithdraw:
		return T(l, KVerbWithdrawn)
	}
	return string(a.Decision.Action)
}

// WhoMayDecide names who may decide a now: its approvers, delegates and,
// once escalated, escalateTo, without those who handed it on.
func WhoMayDecide(a workflow.Approval) string {
	deciders := a.Deciders()
	if len(deciders) == 0 {
		return ""
	}
	return T(a.Locale, KWhoMayDecide, Mentions(a.Locale, deciders))
}

// VoteText answers a person whose approval was counted below the quorum.
func VoteText(a workflow.Approval, d workflow.Decision) string {
	l := a.Locale
	progress := T(l, KProgress, len(a.VotesFor(d.DraftIndex, d.Edited)), a.Quorum())
	switch {
	case d.DraftIndex >= 0 && len(a.Drafts) > 1:
		return T(l, KVoteSameDraft, Escape(a.Title), progress, a.Quorum(), d.DraftIndex+1)
	case d.DraftIndex >= 0:
		return T(l, KVoteDraft, Escape(a.Title), progress, a.Quorum(), d.DraftIndex+1)
	}
	return T(l, KVote, Escape(a.Title), progress, a.Quorum())
}
