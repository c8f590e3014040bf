package sfnlocal

import (
	"errors"
	"fmt"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Error codes of the Step Functions API that the engine returns in an
// APIError; the API server sends them as "__type".
const (
	CodeExecutionAlreadyExists       = "ExecutionAlreadyExists"
	CodeExecutionDoesNotExist        = "ExecutionDoesNotExist"
	CodeExecutionLimitExceeded       = "ExecutionLimitExceeded"
	CodeInvalidArn                   = "InvalidArn"
	CodeInvalidDefinition            = "InvalidDefinition"
	CodeInvalidExecutionInput        = "InvalidExecutionInput"
	CodeInvalidName                  = "InvalidName"
	CodeInvalidOutput                = "InvalidOutput"
	CodeInvalidToken                 = "InvalidToken"
	CodeStateMachineAlreadyExists    = "StateMachineAlreadyExists"
	CodeStateMachineDeleting         = "StateMachineDeleting"
	CodeStateMachineDoesNotExist     = "StateMachineDoesNotExist"
	CodeStateMachineTypeNotSupported = "StateMachineTypeNotSupported"
	CodeTaskDoesNotExist             = "TaskDoesNotExist"
	CodeTaskTimedOut                 = "TaskTimedOut"
	CodeValidationException          = "ValidationException"
)

// ReasonMissingRequiredParameter is the ValidationException reason for a
// request that leaves out every optional member it needs one of.
const ReasonMissingRequiredParameter = "MISSING_REQUIRED_PARAMETER"

// APIError is an error of a Step Functions API operation, with AWS's error
// code and a message like AWS's.
type APIError struct {
	Code    string
	Message string
	// Reason is a ValidationException's reason, e.g.
	// "MISSING_REQUIRED_PARAMETER"; usually empty.
	Reason string
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

func apiErrorf(code, format string, args ...any) *APIError {
	return &APIError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the Code of an *APIError in err's chain, or "".
func ErrorCode(err error) string {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

// Error names the engine raises inside executions.
const (
	errALL                    = "States.ALL"
	errTaskFailed             = "States.TaskFailed"
	errTimeout                = "States.Timeout"
	errHeartbeatTimeout       = "States.HeartbeatTimeout"
	errRuntime                = "States.Runtime"
	errDataLimitExceeded      = "States.DataLimitExceeded"
	errResultPathMatchFailure = "States.ResultPathMatchFailure"
	errParameterPathFailure   = "States.ParameterPathFailure"
	errIntrinsicFailure       = "States.IntrinsicFailure"
	errQueryEvaluation        = "States.QueryEvaluationError"
	errNoChoiceMatched        = "States.NoChoiceMatched"
	errBranchFailed           = "States.BranchFailed"
	errExceedTolerated        = "States.ExceedToleratedFailureThreshold"
)

// stateError is an error raised in an execution: what Retry and Catch match
// and what ExecutionFailed records.
type stateError struct {
	Name  string
	Cause string
	// heartbeat marks a States.Timeout caused by a missed heartbeat, which
	// States.HeartbeatTimeout also matches.
	heartbeat bool
	// nullName is set when SendTaskFailure carried no error name.
	nullName, nullCause bool
	// evaluation, when set, is recorded in an EvaluationFailed event as
	// the state fails, as AWS records errors found evaluating a state's
	// JSONata fields (Arguments, Output, Assign, Items, …). AWS chains
	// that event to the one before the state was entered, except for a
	// value checked after its evaluation (a Wait's Timestamp), which
	// follows the state's entry: checkedValue.
	evaluation   *EvaluationFailedEventDetails
	checkedValue bool
	// taskResult marks a States.DataLimitExceeded raised for a task's
	// result: AWS fails the task with it, and Retry and Catch (States.ALL
	// included) take it like any task failure.
	taskResult bool
}

func (e *stateError) Error() string { return e.Name + ": " + e.Cause }

func stateErrorf(name, format string, args ...any) *stateError {
	return &stateError{Name: name, Cause: fmt.Sprintf(format, args...)}
}

// terminal reports whether no Retry or Catch can handle the error.
func (e *stateError) terminal() bool {
	return e.Name == errRuntime || e.Name == errDataLimitExceeded && !e.taskResult
}

// output is the error output a Catch passes on: {"Error": …, "Cause": …},
// in that order.
func (e *stateError) output() *jsonvalue.Object {
	var name, cause any = e.Name, e.Cause
	if e.nullName {
		name = nil
	}
	if e.nullCause {
		cause = nil
	}
	return jsonvalue.ObjectOf("Error", name, "Cause", cause)
}
