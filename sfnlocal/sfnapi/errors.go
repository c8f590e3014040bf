package sfnapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

// Error codes the server itself answers with, besides the engine's.
const (
	codeSerialization    = "SerializationException"
	codeUnknownOperation = "UnknownOperationException"
	codeInternalFailure  = "InternalFailure"
	codeValidation       = sfnlocal.CodeValidationException
)

// wireError is an error response: the HTTP status, the code sent as
// X-Amzn-ErrorType and "__type", and the body's other members.
type wireError struct {
	status  int
	code    string
	message string
	// reason is ValidationException's optional reason member.
	reason string
}

func (e *wireError) Error() string { return e.code + ": " + e.message }

func badRequest(code, format string, args ...any) *wireError {
	return &wireError{status: http.StatusBadRequest, code: code, message: fmt.Sprintf(format, args...)}
}

// validationError words constraint violations as AWS does:
// "1 validation error detected: …" or "2 validation errors detected: …; …".
func validationError(violations []string) *wireError {
	noun := "errors"
	if len(violations) == 1 {
		noun = "error"
	}
	return badRequest(codeValidation, "%d validation %s detected: %s", len(violations), noun, strings.Join(violations, "; "))
}

// toWire translates an operation's error: an engine *APIError keeps its
// code and reason, anything else is an InternalFailure.
func toWire(err error) *wireError {
	var we *wireError
	if errors.As(err, &we) {
		return we
	}
	var ae *sfnlocal.APIError
	if !errors.As(err, &ae) {
		return &wireError{status: http.StatusInternalServerError, code: codeInternalFailure, message: "Internal failure"}
	}
	return &wireError{status: http.StatusBadRequest, code: ae.Code, message: ae.Message, reason: ae.Reason}
}
