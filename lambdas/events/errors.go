package events

// ErrorStoreUnavailable is the errorType of an invocation whose approvals
// table could not be read or written. EventBridge invokes the function
// asynchronously, so Lambda retries the event (twice by default, then the
// function's on-failure destination); a repeated event only does what is
// left to do. It is the only error the handler returns: a malformed event
// is logged and acknowledged (it will never get better), and Slack
// failures leave the messages to the bot's sweeper.
const ErrorStoreUnavailable = "StoreUnavailable"

// StoreUnavailable is returned when the approvals store failed. Its type
// name is the errorType "StoreUnavailable". Err is the store's error.
type StoreUnavailable struct {
	ExecutionARN string
	Message      string
	Err          error
}

func (e *StoreUnavailable) Error() string { return e.Message }

// Unwrap returns the store's error.
func (e *StoreUnavailable) Unwrap() error { return e.Err }
