// Package task is the contract between the local Step Functions engine and
// its integrations: those that run Task states (Lambda, SQS, ECS, mocked
// services), and those that read a distributed Map's items and write its
// results (ItemReader, ResultWriter: S3). It says what the engine hands an
// integration, and how an integration fails.
package task

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Call is one attempt of a Task state.
type Call struct {
	// Resource is the state's Resource ARN exactly as written, e.g.
	// "arn:aws:states:::lambda:invoke.waitForTaskToken" or a bare Lambda
	// function ARN.
	Resource string
	// Parameters is the effective input: Parameters (JSONPath) or Arguments
	// (JSONata) after evaluation, or the state input when neither is set.
	Parameters json.RawMessage
	// Credentials is the state's Credentials block after evaluation, if any.
	Credentials json.RawMessage

	StateMachineARN string
	ExecutionARN    string
	StateName       string
	// TaskToken is set for .waitForTaskToken resources (a fresh token per
	// attempt); the engine waits for SendTask* on it after Invoke returns.
	TaskToken string
	// Attempt counts retries of this state in this visit, from 0.
	Attempt int
	// TestCase is the Step Functions Local mock test case
	// ("stateMachineArn#TestCase"), if the execution was started with one.
	TestCase string
	// Deadline is when the state's TimeoutSeconds runs out (zero: none).
	Deadline time.Time
	// Submitted, for a .sync resource (Run a Job), records the service's
	// answer to the request that started the job as TaskSubmitted, before
	// Invoke returns the job's result (TaskSucceeded). An integration
	// calls it at most once, from Invoke; it is nil for other resources.
	Submitted func(output json.RawMessage)
}

// Integration runs Task states for some set of resources.
type Integration interface {
	// Supports reports whether this integration runs the resource.
	Supports(resource string) bool
	// Invoke runs one attempt and returns its JSON result: for
	// .waitForTaskToken resources the integration's own response (recorded
	// as TaskSubmitted), otherwise the state's result. A task failure is a
	// *Failure, which Retry and Catch match by name; integrations map their
	// service's errors to AWS's names (Lambda.ServiceException, …). Any
	// other error is a bug or an unexpected condition: the engine records
	// it as States.Runtime, which no Catch matches.
	Invoke(ctx context.Context, call Call) (json.RawMessage, error)
}

// ExecutionObserver is an Integration that keeps per-execution state (a
// mock's invocation counts) and drops it when the execution ends. The
// engine checks each configured integration for it.
type ExecutionObserver interface {
	// ExecutionEnded is called once per execution, after it reached a
	// terminal status (SUCCEEDED, FAILED, TIMED_OUT or ABORTED). It must
	// return quickly and not call back into the engine.
	ExecutionEnded(executionARN string)
}

// TestCaseChecker is an Integration that knows the Step Functions Local mock
// test cases. StartExecution on "stateMachineArn#TestCase" is refused unless
// a configured integration defines the test case.
type TestCaseChecker interface {
	// HasTestCase reports whether testCase is defined for the state machine
	// (its ARN, without the "#TestCase" suffix).
	HasTestCase(stateMachineARN, testCase string) bool
}

// Failure is a task failure as Step Functions records it (TaskFailed with
// error and cause); Retry and Catch match it by Name.
type Failure struct {
	Name  string // the error name, e.g. "Lambda.Unknown" or a function's errorType
	Cause string
}

func (f *Failure) Error() string {
	if f.Cause == "" {
		return f.Name
	}
	return fmt.Sprintf("%s: %s", f.Name, f.Cause)
}
