package blocks

import (
	"fmt"

	"github.com/sfnapprovals/approvals/workflow"
)

// ReminderNotice reminds who may still decide a, as the sweeper posts it
// in the request's thread.
func ReminderNotice(a workflow.Approval) string {
	text := "🔔 Reminder: " + Mentions(a.StillToDecide()) + ", this request still waits for a decision"
	if p := Progress(a); p != "" {
		text += " (" + p + " so far)"
	}
	if !a.Deadline.IsZero() {
		text += "; its deadline is " + Date(a.Deadline)
	}
	return text + "."
}

// EscalationNotice tells escalateTo that they may now decide a.
func EscalationNotice(a workflow.Approval) string {
	text := "⏫ Escalated: " + Mentions(a.Policy.EscalateTo) + ", nobody has decided this request yet, so you may decide it now"
	if !a.Deadline.IsZero() {
		text += "; its deadline is " + Date(a.Deadline)
	}
	return text + "."
}

// DelegationNotice says who handed the request to whom.
func DelegationNotice(d workflow.Delegation) string {
	return fmt.Sprintf("↪️ %s handed this request to %s, who may decide it now.", Mention(d.From), Mention(d.To))
}
