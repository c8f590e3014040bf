package picture

// Error is a picture or timestamp error as jsonata-js reports it, so that
// callers can pass it on unchanged.
type Error struct {
	Code    string // jsonata-js's error code, such as "D3080"
	Message string // jsonata-js's message, word for word
	Value   any    // the offending string or number, or nil when jsonata-js reports none
}

// Error is the code and the message, as "D3080: The picture string…".
func (e *Error) Error() string { return e.Code + ": " + e.Message }
