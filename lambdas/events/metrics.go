package events

import (
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/emf"
)

// The events Lambda's CloudWatch metrics (namespace emf.Namespace,
// dimension Function), written once per invocation, zeros included so
// that Sum is continuous:
//
//	MalformedEvents  events acknowledged without acting (not an execution
//	                 status change event Step Functions sends)
//	SlackFailures    Slack calls that failed (message updates and thread
//	                 replies; the sweeper updates those messages)
//	StoreFailures    invocations failed with StoreUnavailable
//	Duration         the invocation, in milliseconds
//
// and, for an event about an ended execution, on a line of its own with
// the extra dimension Reason (ABORTED, TIMED_OUT, FAILED or SUCCEEDED):
//
//	RequestsClosed   requests this event closed
func (h *Handler) measure(o outcome, err error, d time.Duration) {
	if h.Metrics == nil {
		return
	}
	m := h.Metrics.Begin()
	malformed, storeFailed := 0, 0
	if o.malformed {
		malformed = 1
	}
	if err != nil {
		storeFailed = 1
	}
	m.Count("MalformedEvents", malformed)
	m.Count("SlackFailures", o.slackFailures)
	m.Count("StoreFailures", storeFailed)
	m.Duration("Duration", d)
	if o.status.Ended() {
		m.CountBy("RequestsClosed", emf.Dimension{Name: "Reason", Value: string(o.status)}, o.closed)
	}
	if err := m.Flush(); err != nil {
		h.logger.Warn("metrics not written", zap.Error(err))
	}
}
