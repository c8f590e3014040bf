package intrinsics

// Error names used by this package.
const (
	// ErrRuntime is what AWS records when a function rejects its arguments at
	// run time.
	ErrRuntime = "States.Runtime"
	// ErrIntrinsicFailure is used for expressions that cannot be parsed,
	// which AWS rejects when the state machine is created.
	ErrIntrinsicFailure = "States.IntrinsicFailure"
)

// Error is an intrinsic function failure. Name is the Step Functions error
// name and Message the cause as AWS words it; Detail says why, for logs.
type Error struct {
	Name    string
	Message string
	Detail  string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Name + ": " + e.Message
	}
	return e.Name + ": " + e.Message + " (" + e.Detail + ")"
}

func invalid(fn, detail string) error {
	return &Error{Name: ErrRuntime, Message: "Invalid arguments in " + fn, Detail: detail}
}

func syntaxError(expr, detail string) error {
	return &Error{Name: ErrIntrinsicFailure, Message: "Invalid intrinsic function call " + expr, Detail: detail}
}
