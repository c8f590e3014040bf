package jsonata

import (
	"errors"
	"fmt"

	lib "github.com/blues/jsonata-go"
	"github.com/blues/jsonata-go/jparse"
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
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

// undefinedError is AWS's cause for an expression that returned nothing.
func undefinedError(field, expr string) *Error {
	return &Error{Name: ErrorName, Message: fmt.Sprintf("The JSONata expression '%s'%s returned nothing (undefined).", expr, forField(field))}
}

// evaluationError is AWS's cause for an expression that failed: the
// sentence naming it, then the JSONata code and message when there is one.
func evaluationError(field, expr string, err error) *Error {
	return &Error{Name: ErrorName, Message: fmt.Sprintf("The JSONata expression '%s'%s threw an error during evaluation%s", expr, forField(field), detail(err))}
}

func forField(field string) string {
	if field == "" {
		return ""
	}
	return fmt.Sprintf(" specified for the field '%s'", field)
}

// detail renders err after AWS's sentence: ". CODE: message" for errors
// jsonata-js gives a code, ": message" otherwise.
func detail(err error) string {
	var syntax *jparse.Error
	if errors.As(err, &syntax) {
		return fmt.Sprintf(". S0201: %s at position %d", syntax.Error(), syntax.Position)
	}
	var eval *lib.EvalError
	if errors.As(err, &eval) {
		if code, ok := evalCodes[eval.Type]; ok {
			return ". " + code + ": " + eval.Error()
		}
	}
	var argType *lib.ArgTypeError
	if errors.As(err, &argType) {
		return ". T0410: " + argType.Error()
	}
	var argCount *lib.ArgCountError
	if errors.As(err, &argCount) {
		return ". T0410: " + argCount.Error()
	}
	var coded *codedError
	if errors.As(err, &coded) {
		return ". " + coded.Error()
	}
	return ": " + err.Error()
}

// evalCodes gives the jsonata-js code of the library's evaluation errors.
var evalCodes = map[lib.ErrType]string{
	lib.ErrNonIntegerLHS:    "T2003",
	lib.ErrNonIntegerRHS:    "T2004",
	lib.ErrNonNumberLHS:     "T2001",
	lib.ErrNonNumberRHS:     "T2002",
	lib.ErrNonComparableLHS: "T2010",
	lib.ErrNonComparableRHS: "T2010",
	lib.ErrTypeMismatch:     "T2009",
	lib.ErrNonCallable:      "T1006",
	lib.ErrNumberInf:        "D1001",
	lib.ErrNumberNaN:        "D1001",
	lib.ErrMaxRangeItems:    "D2014",
	lib.ErrIllegalKey:       "T1003",
	lib.ErrDuplicateKey:     "D1009",
	lib.ErrIllegalUpdate:    "T2011",
	lib.ErrIllegalDelete:    "T2012",
	lib.ErrNonSortable:      "T2008",
	lib.ErrSortMismatch:     "T2007",
}

// codedError is an error raised by the Step Functions functions, with the
// JSONata code AWS reports for it.
type codedError struct {
	code, message string
}

func (e *codedError) Error() string { return e.code + ": " + e.message }

func signatureError(function string, argument int) error {
	return &codedError{"T0410", fmt.Sprintf("Argument %d of function %q does not match function signature", argument, function)}
}
