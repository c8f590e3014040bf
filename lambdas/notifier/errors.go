package notifier

import (
	"errors"
	"strings"

	"github.com/sfnapprovals/approvals/workflow"
)

// The error types below are what a state machine sees as the Lambda error's
// errorType: aws-lambda-go names a function error after the Go type of the
// outermost error, so the handler returns them unwrapped.
//
//   - InvalidApprovalRequest: the payload is not a valid approval request
//     (not JSON, wrong shape, missing or oversize field, bad Slack ID).
//     Nothing was stored or posted. Do not retry; Catch it.
//   - SlackPostFailed: Slack refused or did not answer chat.postMessage; the
//     message names Slack's error code (channel_not_found, not_in_channel,
//     ratelimited with Slack's Retry-After, …). The approval is stored but
//     not posted; a retry with the same task token posts it once. A 429 is
//     waited out inside the invocation only when short (see post).
//   - StoreUnavailable: the approvals table could not be read or written.
//     Retry.
//
// Retry policies that fit: {"ErrorEquals": ["SlackPostFailed"],
// "IntervalSeconds": 2, "MaxAttempts": 6, "BackoffRate": 2,
// "MaxDelaySeconds": 60, "JitterStrategy": "FULL"} and {"ErrorEquals":
// ["StoreUnavailable"], "IntervalSeconds": 2, "MaxAttempts": 3,
// "BackoffRate": 2}.
const (
	ErrorInvalidApprovalRequest = "InvalidApprovalRequest"
	ErrorSlackPostFailed        = "SlackPostFailed"
	ErrorStoreUnavailable       = "StoreUnavailable"
)

// InvalidApprovalRequest is returned when the payload is not a valid
// approval request. Its type name is the errorType "InvalidApprovalRequest".
type InvalidApprovalRequest struct {
	Message string
}

func (e *InvalidApprovalRequest) Error() string { return e.Message }

// SlackPostFailed is returned when posting the request message failed. Its
// type name is the errorType "SlackPostFailed". Err is the poster's error.
type SlackPostFailed struct {
	ApprovalID string
	Message    string
	Err        error
}

func (e *SlackPostFailed) Error() string { return e.Message }

// Unwrap returns the poster's error.
func (e *SlackPostFailed) Unwrap() error { return e.Err }

// StoreUnavailable is returned when the approvals store failed. Its type
// name is the errorType "StoreUnavailable". Err is the store's error.
type StoreUnavailable struct {
	ApprovalID string // empty when the approval was not stored yet
	Message    string
	Err        error
}

func (e *StoreUnavailable) Error() string { return e.Message }

// Unwrap returns the store's error.
func (e *StoreUnavailable) Unwrap() error { return e.Err }

// invalid translates a ParseRequest failure.
func invalid(err error) *InvalidApprovalRequest {
	var e *workflow.Error
	if errors.As(err, &e) {
		return &InvalidApprovalRequest{Message: "invalid approval request: " + e.Message}
	}
	return &InvalidApprovalRequest{Message: "invalid approval request"}
}

// redact removes the task token from an error text built from another
// package's error, in case that error quoted it. Real tokens are hundreds
// of characters; a shorter string would only garble the message.
func redact(msg string, token workflow.TaskToken) string {
	if len(token) < 8 {
		return msg
	}
	return strings.ReplaceAll(msg, token.Reveal(), token.String())
}
