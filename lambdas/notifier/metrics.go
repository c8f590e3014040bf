package notifier

import (
	"time"

	"go.uber.org/zap"
)

// The notifier's CloudWatch metrics (namespace emf.Namespace, dimension
// Function), one EMF line per invocation, every metric present (zeros
// included) so that Sum is continuous:
//
//	RequestsPosted    request messages posted to Slack
//	RequestsReplaced  older requests this one cancelled (superseded)
//	InvalidRequests   invocations failed with InvalidApprovalRequest
//	SlackFailures     invocations failed with SlackPostFailed
//	StoreFailures     invocations failed with StoreUnavailable
//	Duration          the invocation, in milliseconds
func (h *Handler) measure(l invocationLog, err error, d time.Duration) {
	if h.Metrics == nil {
		return
	}
	failed := func(want string) int {
		if err != nil && errorType(err) == want {
			return 1
		}
		return 0
	}
	posted := 0
	if l.posted {
		posted = 1
	}
	m := h.Metrics.Begin()
	m.Count("RequestsPosted", posted)
	m.Count("RequestsReplaced", len(l.replaced))
	m.Count("InvalidRequests", failed(ErrorInvalidApprovalRequest))
	m.Count("SlackFailures", failed(ErrorSlackPostFailed))
	m.Count("StoreFailures", failed(ErrorStoreUnavailable))
	m.Duration("Duration", d)
	if err := m.Flush(); err != nil {
		h.logger.Warn("metrics not written", zap.Error(err))
	}
}
