package blocks

import (
	"net/url"
	"strings"

	"github.com/sfnapprovals/approvals/workflow"
)

// What a cancelled request's message, reply and late click say. A request
// replaced by a newer one links to the newer message; one whose execution
// ended says how and when; any other cancellation gives its reason.

// cancelledOutcome is the outcome line of a cancelled approval's message.
func cancelledOutcome(a workflow.Approval) string {
	l := a.Locale
	switch {
	case replaced(a):
		return T(l, KCancelOutReplaced, newerLink(a, KLinkAfterColon, KLinkOpenIt))
	case executionEnded(a):
		return T(l, KCancelOut, executionEnd(a))
	}
	return T(l, KCancelOut, Escape(cancelReason(a)))
}

// cancelledReply is the short text of a cancelled approval.
func cancelledReply(a workflow.Approval) string {
	l := a.Locale
	switch {
	case replaced(a):
		return T(l, KCancelReplyReplaced, newerLink(a, KLinkAfterColon, KLinkNewRequest))
	case executionEnded(a):
		return T(l, KCancelReply, executionEnd(a))
	}
	return T(l, KCancelReply, Escape(cancelReason(a)))
}

// CancelledLate answers a click on a cancelled approval's message.
func CancelledLate(a workflow.Approval) string {
	l := a.Locale
	switch {
	case replaced(a):
		return T(l, KCancelLateReplaced, newerLink(a, KLinkDecideOn, KLinkNewRequest))
	case executionEnded(a):
		return T(l, KCancelLateEnded, executionEnd(a))
	}
	return T(l, KCancelLateOther, Escape(cancelReason(a)))
}

func executionEnded(a workflow.Approval) bool {
	return a.Cancellation != nil && a.Cancellation.ExecutionEnded()
}

// executionEnd says how and when the execution of a ended, such as "the
// execution was aborted at <date>".
func executionEnd(a workflow.Approval) string {
	l, t := a.Locale, a.Cancellation.StoppedAt
	keys := map[string][2]Key{
		workflow.ReasonExecutionAborted:   {KExecAborted, KExecAbortedAt},
		workflow.ReasonExecutionTimedOut:  {KExecTimedOut, KExecTimedOutAt},
		workflow.ReasonExecutionFailed:    {KExecFailed, KExecFailedAt},
		workflow.ReasonExecutionSucceeded: {KExecSucceeded, KExecSucceededAt},
	}
	k, ok := keys[a.Cancellation.Reason]
	switch {
	case !ok:
		return T(l, KExecGone)
	case t.IsZero():
		return T(l, k[0])
	}
	return T(l, k[1], Date(l, t))
}

func replaced(a workflow.Approval) bool {
	return a.Cancellation != nil && a.Cancellation.ReplacedBy != ""
}

// cancelReason is why a was cancelled as recorded, in a's locale where
// the catalog words it.
func cancelReason(a workflow.Approval) string {
	switch {
	case a.Cancellation == nil || a.Cancellation.Reason == "":
		return T(a.Locale, KCancelNoReason)
	case a.Cancellation.Reason == workflow.ReasonReplaced:
		return T(a.Locale, KReasonReplaced)
	}
	return a.Cancellation.Reason
}

// newerLink is a mrkdwn link labelled label to the newer request's
// message, set in around, or "" when its link is unknown or not a plain
// web link.
func newerLink(a workflow.Approval, around, label Key) string {
	if a.Cancellation == nil || !webLink(a.Cancellation.Link) {
		return ""
	}
	return T(a.Locale, around, "<"+a.Cancellation.Link+"|"+T(a.Locale, label)+">")
}

// webLink reports whether link is an http(s) URL that cannot break out of a
// mrkdwn link.
func webLink(link string) bool {
	u, err := url.Parse(link)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" &&
		!strings.ContainsAny(link, "|<> \t\n\"")
}
