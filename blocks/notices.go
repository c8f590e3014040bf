package blocks

import (
	"github.com/sfnapprovals/approvals/workflow"
)

// ReminderNotice reminds who may still decide a, as the sweeper posts it
// in the request's thread.
func ReminderNotice(a workflow.Approval) string {
	l, who, p := a.Locale, Mentions(a.Locale, a.StillToDecide()), Progress(a)
	switch {
	case p != "" && !a.Deadline.IsZero():
		return T(l, KReminderProgressDeadln, who, p, Date(l, a.Deadline))
	case p != "":
		return T(l, KReminderProgress, who, p)
	case !a.Deadline.IsZero():
		return T(l, KReminderDeadline, who, Date(l, a.Deadline))
	}
	return T(l, KReminder, who)
}

// EscalationNotice tells escalateTo that they may now decide a.
func EscalationNotice(a workflow.Approval) string {
	who := Mentions(a.Locale, a.Policy.EscalateTo)
	if !a.Deadline.IsZero() {
		return T(a.Locale, KEscalationDeadline, who, Date(a.Locale, a.Deadline))
	}
	return T(a.Locale, KEscalation, who)
}

// DelegationNotice says who handed a to whom, in a's locale.
func DelegationNotice(a workflow.Approval, d workflow.Delegation) string {
	return T(a.Locale, KDelegation, Mention(d.From), Mention(d.To))
}

// RequesterNotice is the one line the requester of the final approval a
// gets in a direct message: what became of it, by whom, and a link to the
// request (link "" for none).
func RequesterNotice(a workflow.Approval, link string) string {
	text := T(a.Locale, KRequesterNotice, Escape(a.Title), ReplyText(a))
	if webLink(link) {
		text += T(a.Locale, KRequesterNoticeLink, link)
	}
	return text
}
