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
	switch {
	case replaced(a):
		return "⏹️ *Replaced by a newer request*" + newerLink(a, ": ", "open it") + ". Its buttons no longer decide anything."
	case executionEnded(a):
		return "⏹️ *Cancelled*: " + executionEnd(a) + ". Its buttons no longer decide anything."
	}
	return "⏹️ *Cancelled*: " + Escape(cancelReason(a)) + ". Its buttons no longer decide anything."
}

// cancelledReply is the short text of a cancelled approval.
func cancelledReply(a workflow.Approval) string {
	switch {
	case replaced(a):
		return "Replaced by a newer request" + newerLink(a, ": ", "the new request") + "."
	case executionEnded(a):
		return "Cancelled: " + executionEnd(a) + "."
	}
	return "Cancelled: " + Escape(cancelReason(a)) + "."
}

// cancelledLate answers a click on a cancelled approval's message.
func CancelledLate(a workflow.Approval) string {
	switch {
	case replaced(a):
		return "This request was replaced by a newer request, so this button changes nothing" +
			newerLink(a, ". Decide on ", "the new request") + "."
	case executionEnded(a):
		return "This request was cancelled because " + executionEnd(a) + ", so this button changes nothing."
	}
	return "This request was cancelled (" + Escape(cancelReason(a)) + "), so this button changes nothing."
}

func executionEnded(a workflow.Approval) bool {
	return a.Cancellation != nil && a.Cancellation.ExecutionEnded()
}

// executionEnd says how and when the execution of a ended, such as "the
// execution was aborted at <date>".
func executionEnd(a workflow.Approval) string {
	at := ""
	if t := a.Cancellation.StoppedAt; !t.IsZero() {
		at = " at " + Date(t)
	}
	switch a.Cancellation.Reason {
	case workflow.ReasonExecutionAborted:
		return "the execution was aborted" + at
	case workflow.ReasonExecutionTimedOut:
		return "the execution timed out" + at
	case workflow.ReasonExecutionFailed:
		return "the execution failed" + at
	case workflow.ReasonExecutionSucceeded:
		return "the execution finished" + at + " without waiting for this decision"
	}
	return "the execution no longer exists"
}

func replaced(a workflow.Approval) bool {
	return a.Cancellation != nil && a.Cancellation.ReplacedBy != ""
}

func cancelReason(a workflow.Approval) string {
	if a.Cancellation == nil || a.Cancellation.Reason == "" {
		return "no reason recorded"
	}
	return a.Cancellation.Reason
}

// newerLink is before + a mrkdwn link labelled label to the newer request's
// message, or "" when its link is unknown or not a plain web link.
func newerLink(a workflow.Approval, before, label string) string {
	if a.Cancellation == nil || !webLink(a.Cancellation.Link) {
		return ""
	}
	return before + "<" + a.Cancellation.Link + "|" + label + ">"
}

// webLink reports whether link is an http(s) URL that cannot break out of a
// mrkdwn link.
func webLink(link string) bool {
	u, err := url.Parse(link)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" &&
		!strings.ContainsAny(link, "|<> \t\n\"")
}
