package workflow

import (
	"errors"
	"fmt"
)

// Error codes. Adapters translate them at the edge: a Lambda error type, a
// private Slack message.
const (
	EINVALID   = "invalid"   // the input is wrong; nothing was changed
	ENOTFOUND  = "not_found" // no such approval
	EFORBIDDEN = "forbidden" // this person may not decide this approval
	ECONFLICT  = "conflict"  // somebody already decided, or is deciding
	EEXPIRED   = "expired"   // the task timed out or was closed
	ECANCELLED = "cancelled" // the request was cancelled (replaced by a newer one, …)
)

// Error is a domain error: a code callers branch on and a message people
// can read. Messages never contain a task token.
type Error struct {
	Code    string
	Message string
	// Approval is the current state of the approval the error is about, when
	// known (for conflicts: who decided, and how).
	Approval *Approval
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, or "" for
// nil and for errors that are not domain errors (infrastructure failures).
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ErrorMessage returns the human message of a domain error, or a generic
// message for anything else, so infrastructure details stay in the logs.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong on our side; nothing was changed. Please try again."
}
