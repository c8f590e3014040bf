package workflowtest

import (
	"context"
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// Executions is an in-memory workflow.Executions. Every execution runs
// until End stops it or Forget makes Step Functions forget it (ENOTFOUND,
// as after its history is gone). It is safe for concurrent use.
type Executions struct {
	mu    sync.Mutex
	ended map[string]workflow.Execution
	gone  map[string]bool
	err   error
	calls map[string]int
}

var _ workflow.Executions = (*Executions)(nil)

// NewExecutions returns an Executions in which everything runs.
func NewExecutions() *Executions {
	return &Executions{ended: map[string]workflow.Execution{}, gone: map[string]bool{}, calls: map[string]int{}}
}

// End stops the execution with the status at stopped.
func (e *Executions) End(arn string, status workflow.ExecutionStatus, stopped time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ended[arn] = workflow.Execution{ARN: arn, Status: status, StoppedAt: stopped}
}

// Forget makes the execution unknown.
func (e *Executions) Forget(arn string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gone[arn] = true
}

// SetErr makes every later call fail with err (throttling, an outage); nil
// heals.
func (e *Executions) SetErr(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.err = err
}

// Calls returns how often each execution was asked about.
func (e *Executions) Calls() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int, len(e.calls))
	for k, v := range e.calls {
		out[k] = v
	}
	return out
}

// Execution implements workflow.Executions.
func (e *Executions) Execution(_ context.Context, arn string) (workflow.Execution, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls[arn]++
	switch x, ended := e.ended[arn]; {
	case e.err != nil:
		return workflow.Execution{}, e.err
	case e.gone[arn]:
		return workflow.Execution{}, workflow.Errorf(workflow.ENOTFOUND, "Execution Does Not Exist: %s", arn)
	case ended:
		return x, nil
	}
	return workflow.Execution{ARN: arn, Status: workflow.ExecutionRunning}, nil
}
