package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// CloseGone closes, at once, the pending approvals whose execution Step
// Functions (Executions) does not know: each is cancelled with reason, as
// when a local engine that keeps its executions in memory restarted, so
// no live button points at an execution that is gone. Approvals of an
// execution that ended are closed as CloseExecution closes them; those of
// a running one are left. Unlike Recover's checks it is not paced: it
// asks about every execution with pending approvals, once each.
//
// It returns the approvals it closed, as stored: their messages need
// updating. Errors: EINVALID for an empty reason or one longer than
// MaxReasonTextLen (nothing changed); otherwise the failed checks and
// writes, joined (their approvals stay pending, and a repeated call
// closes them).
func (s *Service) CloseGone(ctx context.Context, reason string) ([]Approval, error) {
	if reason == "" || utf8.RuneCountInString(reason) > MaxReasonTextLen {
		return nil, Errorf(EINVALID, "a cancellation needs a reason of at most %d characters", MaxReasonTextLen)
	}
	if s.Executions == nil {
		return nil, fmt.Errorf("approval service has no Executions configured")
	}
	var open []Approval
	var after Cursor
	for {
		page, next, err := s.store.List(ctx, QueueOpen, after, time.Time{}, 1000)
		if err != nil {
			return nil, fmt.Errorf("list open approvals: %w", err)
		}
		open = append(open, page...)
		if next == "" {
			break
		}
		after = next
	}
	byExecution := map[string][]Approval{}
	var order []string
	for _, a := range open {
		if a.ExecutionARN == "" || a.Status != StatusPending {
			continue
		}
		if _, ok := byExecution[a.ExecutionARN]; !ok {
			order = append(order, a.ExecutionARN)
		}
		byExecution[a.ExecutionARN] = append(byExecution[a.ExecutionARN], a)
	}
	var closed []Approval
	var errs []error
	for _, arn := range order {
		x, err := s.Executions.Execution(ctx, arn)
		var c Cancellation
		switch {
		case ErrorCode(err) == ENOTFOUND:
			c = Cancellation{Reason: reason}
		case err != nil:
			errs = append(errs, fmt.Errorf("check execution %s: %w", arn, err))
			continue
		case x.Status.Ended():
			c = Ended(x)
		default:
			continue
		}
		done, err := s.cancelAll(ctx, byExecution[arn], c)
		closed = append(closed, done...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return closed, errors.Join(errs...)
}
