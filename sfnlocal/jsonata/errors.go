package jsonata

import (
	"errors"
	"fmt"

	lang "github.com/sfnapprovals/approvals/jsonata"
)

// ErrorName is the error every evaluation failure raises, which a Catch
// or Retry can match.
const ErrorName = "States.QueryEvaluationError"

// Error is an evaluation failure. Message is the cause AWS reports: it
// names the expression and, when known, the field it was written in
// ("Output/order/id", "Choices[0]/Condition").
type Error struct {
	Name    string
	Message string
	// Field is the field the failing expression was written in, down to
	// the member ("Output/result", "Arguments/FunctionName"): the location
	// AWS records in the EvaluationFailed event. Empty when unknown.
	Field string
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

// undefinedError is AWS's cause for an expression that returned nothing.
func undefinedError(field, expr string) *Error {
	return &Error{Name: ErrorName, Field: field, Message: fmt.Sprintf("The JSONata expression '%s'%s returned nothing (undefined).", expr, forField(field))}
}

// unsupportedError is AWS's cause for an expression whose result is a
// function, which has no JSON form.
func unsupportedError(field, expr string) *Error {
	return &Error{Name: ErrorName, Field: field, Message: fmt.Sprintf("The JSONata expression '%s'%s returned an unsupported result type.", expr, forField(field))}
}

// evaluationError is AWS's cause for an expression that failed: the
// sentence naming it, then the JSONata code and message when there is one.
func evaluationError(field, expr string, err error) *Error {
	return &Error{Name: ErrorName, Field: field, Message: fmt.Sprintf("The JSONata expression '%s'%s threw an error during evaluation%s", expr, forField(field), detail(err))}
}

func forField(field string) string {
	if field == "" {
		return ""
	}
	return fmt.Sprintf(" specified for the field '%s'", field)
}

// detail renders err after AWS's sentence: ". CODE: message" for a JSONata
// error with a code, ": message" for anything else.
func detail(err error) string {
	if e, ok := errors.AsType[*lang.Error](err); ok && e.Code != "" {
		return ". " + e.Code + ": " + e.Message
	}
	if e, ok := errors.AsType[*lang.Error](err); ok { // a JavaScript error jsonata-js gives no code
		return ": " + e.Message
	}
	return ": " + err.Error()
}

// signatureError is jsonata-js's T0410 for an argument of a Step Functions
// function that its signature lets through but the function refuses.
func signatureError(c *lang.Call, argument int) error {
	return &lang.Error{
		Code:     "T0410",
		Message:  fmt.Sprintf("Argument %d of function %q does not match function signature", argument, c.Name),
		Position: c.Position,
		Token:    c.Name,
	}
}

// functionError is an error a Step Functions function raises, with the
// JSONata code AWS reports for it.
func functionError(c *lang.Call, code, format string, args ...any) error {
	return &lang.Error{Code: code, Message: fmt.Sprintf(format, args...), Position: c.Position, Token: c.Name}
}
