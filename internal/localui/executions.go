package localui

import (
	"context"
	"time"
)

// Executions is what the executions panel needs from Step Functions. sfnexec.Executions
// implements it over the Step Functions API. Errors are shown to the person as they are, so they
// must carry no secret.
type Executions interface {
	// StateMachines lists the registered state machines, sorted by name, each with its sample
	// inputs.
	StateMachines(ctx context.Context) ([]StateMachine, error)
	// Start starts an execution of the state machine with a JSON input. An empty name lets
	// Step Functions choose one. It returns the execution's ARN.
	Start(ctx context.Context, stateMachineARN, name, input string) (string, error)
	// List returns the most recent executions of every state machine, newest first, at most
	// limit of them.
	List(ctx context.Context, limit int) ([]Execution, error)
	// Describe returns one execution with its input, output and history.
	Describe(ctx context.Context, executionARN string) (ExecutionDetail, error)
	// Stop stops a running execution.
	Stop(ctx context.Context, executionARN string) error
}

// StateMachine is a registered state machine.
type StateMachine struct {
	ARN, Name string
	// Samples are inputs to start it with; the first is offered first.
	Samples []Sample
}

// Sample is a named execution input (JSON text).
type Sample struct {
	Name, Input string
}

// Execution is one execution as the panel lists it.
type Execution struct {
	ARN, Name, StateMachine string
	// Status is RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED (or PENDING_REDRIVE).
	Status              string
	StartDate, StopDate time.Time
	// State is, for a running execution, the state it last entered; WaitsForCallback is set
	// when that state waits for a task token (.waitForTaskToken).
	State            string
	WaitsForCallback bool
}

// ExecutionDetail is an execution with its data and history.
type ExecutionDetail struct {
	Execution
	Input, Output, Error, Cause string
	History                     []HistoryEvent
	// Truncated is set when only the last events of a long history are in History.
	Truncated bool
}

// HistoryEvent is one event of an execution's history. Details is its details as JSON, with
// task tokens masked.
type HistoryEvent struct {
	ID        int64
	Timestamp time.Time
	Type      string
	// State is the state the event belongs to, when known.
	State   string
	Details string
}
