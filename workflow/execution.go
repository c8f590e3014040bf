package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ExecutionStatus is the status of a Step Functions execution, as
// DescribeExecution and the execution status change events report it.
type ExecutionStatus string

// The statuses an execution can have.
const (
	ExecutionRunning        ExecutionStatus = "RUNNING"
	ExecutionSucceeded      ExecutionStatus = "SUCCEEDED"
	ExecutionFailed         ExecutionStatus = "FAILED"
	ExecutionTimedOut       ExecutionStatus = "TIMED_OUT"
	ExecutionAborted        ExecutionStatus = "ABORTED"
	ExecutionPendingRedrive ExecutionStatus = "PENDING_REDRIVE"
)

// Known reports whether s is one of the statuses Step Functions reports.
func (s ExecutionStatus) Known() bool {
	switch s {
	case ExecutionRunning, ExecutionSucceeded, ExecutionFailed, ExecutionTimedOut, ExecutionAborted, ExecutionPendingRedrive:
		return true
	}
	return false
}

// Ended reports whether an execution with this status has stopped, so no
// task of it waits for a result. A redriven execution runs again with new
// tasks (and new requests).
func (s ExecutionStatus) Ended() bool {
	switch s {
	case ExecutionSucceeded, ExecutionFailed, ExecutionTimedOut, ExecutionAborted:
		return true
	}
	return false
}

// Execution is what Step Functions reports of an execution.
type Execution struct {
	ARN       string
	Status    ExecutionStatus
	StoppedAt time.Time // zero while it runs, or when unknown
}

// Reasons of requests closed because their execution ended, one per
// status, and because Step Functions no longer knows the execution.
// ReasonExecutionSucceeded means the workflow moved on without the answer
// (a Catch, a Parallel branch that failed, a Choice elsewhere).
const (
	ReasonExecutionAborted   = "execution aborted"
	ReasonExecutionTimedOut  = "execution timed out"
	ReasonExecutionFailed    = "execution failed"
	ReasonExecutionSucceeded = "execution succeeded"
	ReasonExecutionNotFound  = "execution not found"
)

// Ended is the cancellation of a request whose execution ended as x says,
// stamped with when it stopped. x.Status must be one that Ended.
func Ended(x Execution) Cancellation {
	reason := map[ExecutionStatus]string{
		ExecutionAborted:   ReasonExecutionAborted,
		ExecutionTimedOut:  ReasonExecutionTimedOut,
		ExecutionFailed:    ReasonExecutionFailed,
		ExecutionSucceeded: ReasonExecutionSucceeded,
	}[x.Status]
	return Cancellation{Reason: reason, StoppedAt: x.StoppedAt}
}

// ExecutionEnded reports whether c closed a request because its execution
// ended or is gone (one of the ReasonExecution… reasons).
func (c Cancellation) ExecutionEnded() bool {
	switch c.Reason {
	case ReasonExecutionAborted, ReasonExecutionTimedOut, ReasonExecutionFailed, ReasonExecutionSucceeded, ReasonExecutionNotFound:
		return true
	}
	return false
}

// Executions reads the status of executions.
type Executions interface {
	// Execution returns what Step Functions reports of the execution. An
	// execution it does not know (never started, or its history is gone)
	// is ENOTFOUND; any other error is transient. It changes nothing.
	Execution(ctx context.Context, executionARN string) (Execution, error)
}

// stopSlack is how long after an execution's stop date CloseExecution
// still takes a request for one of the run that stopped: the date is in
// whole milliseconds, and the clock of Step Functions and ours may differ
// a little. A redriven run starts well after the stop: its redrive is
// asked for once the stop is known.
const stopSlack = 250 * time.Millisecond

// CloseExecution closes the open requests of an execution that ended as x
// says: each pending approval of it becomes cancelled (Ended(x)), leaves
// the pending list and waits on QueueMessage for its message to be
// updated. It returns the approvals it closed, as stored.
//
// It finds them with one indexed lookup (Store.ListOpen), so an execution
// with no request costs one query. A claimed approval, whose decision is
// being resumed right now, is left to that resume, which finds its task
// closed. Approvals created more than a moment (stopSlack) after
// x.StoppedAt are left alone: they belong to a later run of a redriven
// execution, and a late or repeated event of the run before must not
// close them (one created late by the run that stopped, as when the
// notifier was still running, is Recover's to close). So a duplicate, a
// late or an out-of-order event changes nothing more, and a status that
// has not Ended (RUNNING, PENDING_REDRIVE) changes nothing at all.
//
// Errors: EINVALID for an ARN that is not an execution ARN or an unknown
// status (nothing changed); any other error is the store's: the approvals
// closed before it are returned with it, and a repeated call closes the
// rest.
func (s *Service) CloseExecution(ctx context.Context, x Execution) ([]Approval, error) {
	if !IsExecutionARN(x.ARN) {
		return nil, Errorf(EINVALID, "cannot close the requests of an execution: its ARN is not a Step Functions execution ARN")
	}
	if !x.Status.Known() {
		return nil, Errorf(EINVALID, "cannot close the requests of execution %s: unknown status %q", x.ARN, truncate(string(x.Status), 40))
	}
	if !x.Status.Ended() {
		return nil, nil
	}
	open, err := s.store.ListOpen(ctx, x.ARN, listAll)
	if err != nil {
		return nil, fmt.Errorf("list the open requests of execution %s: %w", x.ARN, err)
	}
	var stale []Approval
	for _, a := range open {
		if a.Status == StatusPending && (x.StoppedAt.IsZero() || !a.CreatedAt.After(x.StoppedAt.Add(stopSlack))) {
			stale = append(stale, a)
		}
	}
	return s.cancelAll(ctx, stale, Ended(x))
}

// cancelAll cancels each approval still pending for the reason c. An
// approval decided, claimed or closed meanwhile is skipped; any other
// failure is returned, joined, with the approvals cancelled.
func (s *Service) cancelAll(ctx context.Context, list []Approval, c Cancellation) ([]Approval, error) {
	var closed []Approval
	var errs []error
	for _, a := range list {
		got, err := s.cancel(ctx, a.ID, c)
		switch {
		case err == nil:
			closed = append(closed, s.audit(ctx, got))
		case ErrorCode(err) == ECONFLICT, ErrorCode(err) == ENOTFOUND:
		default:
			errs = append(errs, fmt.Errorf("close approval %s (%s): %w", a.ID, c.Reason, err))
		}
	}
	return closed, errors.Join(errs...)
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
