package notifier

import (
	"time"

	"go.uber.org/zap"
)

// invocationLog collects the fields of the one log line an invocation
// writes. It never holds the task token.
type invocationLog struct {
	start        time.Time
	requestID    string
	approvalID   string
	executionARN string
	channel      string
	created      bool
	posted       bool
	duplicate    bool     // posted a copy of a request another call recorded
	replaced     []string // older approvals this request replaced
	replaceErrs  []string // what went wrong replacing them (token-free)
	// rateLimitWait is the Retry-After waited for, if Slack answered 429.
	rateLimitWait time.Duration
}

func (h *Handler) log(l invocationLog, err error) {
	fields := []zap.Field{
		zap.String("aws_request_id", l.requestID),
		zap.String("approval_id", l.approvalID),
		zap.String("execution_arn", l.executionARN),
		zap.String("channel", l.channel),
		zap.Bool("created", l.created),
		zap.Bool("retry", l.approvalID != "" && !l.created),
		zap.Bool("posted", l.posted),
		zap.Duration("duration", time.Since(l.start)),
	}
	if l.rateLimitWait > 0 {
		fields = append(fields, zap.Duration("rate_limit_wait", l.rateLimitWait))
	}
	if len(l.replaced) > 0 {
		fields = append(fields, zap.Strings("replaced", l.replaced))
	}
	if l.duplicate {
		fields = append(fields, zap.Bool("duplicate_post", true))
	}
	if len(l.replaceErrs) > 0 {
		// Best effort: the request itself is posted and recorded.
		fields = append(fields, zap.Strings("replace_errors", l.replaceErrs))
		h.logger.Warn("approval request posted; replacing older requests failed", fields...)
		return
	}
	if err != nil {
		// err's text is token-free by construction (see errors.go).
		fields = append(fields, zap.String("error", err.Error()), zap.String("error_type", errorType(err)))
		h.logger.Warn("approval request failed", fields...)
		return
	}
	msg := "approval request posted"
	if !l.posted {
		msg = "approval request already posted"
	}
	h.logger.Info(msg, fields...)
}

func errorType(err error) string {
	switch err.(type) {
	case *InvalidApprovalRequest:
		return ErrorInvalidApprovalRequest
	case *SlackPostFailed:
		return ErrorSlackPostFailed
	case *StoreUnavailable:
		return ErrorStoreUnavailable
	}
	return "unknown"
}
