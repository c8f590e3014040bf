package blocks

import (
	"fmt"

	"github.com/sfnapprovals/approvals/workflow"
)

// Private answers the bot gives a person about their click.
const (
	TextTransient = "Could not complete your decision because of a temporary problem. " +
		"If it went through, the message will update by itself; otherwise please try again in a minute."
	TextNotFound     = "This approval no longer exists."
	TextSlowClick    = "That took too long to open. Please click the button again."
	TextNoGroups     = "Cannot check your group membership right now; please try again shortly."
	TextNotOnRequest = "These buttons decide only on the request message in its channel; this click changed nothing."
)

// LateText tells somebody who clicked an approval that is no longer
// pending what became of it.
func LateText(a workflow.Approval, err error) string {
	switch {
	case a.Status == workflow.StatusCancelled:
		return CancelledLate(a)
	case a.Status == workflow.StatusExpired:
		return "This approval has expired: the workflow stopped waiting for it."
	case a.Status == workflow.StatusDecided && DecidedByDeadline(a):
		return fmt.Sprintf("Nobody decided this request in time, so it was %s at its deadline (%s).",
			DeadlineVerb(a.Decision.Action), Date(a.Decision.DecidedAt))
	case a.Status == workflow.StatusDecided && a.Decision != nil:
		return fmt.Sprintf("This approval was already decided by %s (%s at %s).",
			Mention(a.Decision.DecidedBy), verb(a), Date(a.Decision.DecidedAt))
	case err != nil:
		return workflow.ErrorMessage(err)
	}
	return "Somebody is deciding this approval right now."
}

func verb(a workflow.Approval) string {
	switch a.Decision.Action {
	case workflow.ActionApprove:
		if i := ChosenDraft(a); i != nil {
			return fmt.Sprintf("approved draft %d", *i+1)
		}
		return "approved"
	case workflow.ActionReject:
		return "rejected"
	case workflow.ActionRevise:
		return "changes requested"
	case workflow.ActionSkip:
		return "skipped"
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
	return " Who may decide: " + Mentions(deciders) + "."
}

// VoteText answers a person whose approval was counted below the quorum.
func VoteText(a workflow.Approval, d workflow.Decision) string {
	what := "Your approval"
	if d.DraftIndex >= 0 {
		what = fmt.Sprintf("Your approval of draft %d", d.DraftIndex+1)
	}
	same := ""
	if len(a.Drafts) > 1 {
		same = " of the same draft"
	}
	return fmt.Sprintf("%s of *%s* is counted (%s so far). The workflow continues once %d people approved%s.",
		what, Escape(a.Title), progressOf(a, d.DraftIndex), a.Quorum(), same)
}

// progressOf is how many approvals the draft has, such as "1 of 2
// approvals".
func progressOf(a workflow.Approval, draft int) string {
	return fmt.Sprintf("%d of %d approvals", len(a.ApprovalsOf(draft)), a.Quorum())
}
