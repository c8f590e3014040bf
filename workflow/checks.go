package workflow

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ExecutionChecks paces the safety net behind CloseExecution: Recover asks
// Step Functions (Service.Executions) whether the executions of pending
// approvals still run, and closes the approvals of those that ended or are
// gone. Step Functions allows DescribeExecution about 15 calls a second
// per account and region (a bucket of 300), shared with everything else,
// so the checks are bounded: each Recover run asks about at most PerRun
// executions, one call per execution whatever its number of approvals.
//
// The checks are scheduled in the Store, one entry per execution, which
// every replica shares: a request schedules its execution's first check
// After its creation (approvals younger than that are left to the status
// change event; a later request of the same execution moves it later),
// and each check that finds the execution running schedules the next one
// Every later. A run reads only the checks due, the longest due first.
//
// So, with E executions holding pending approvals and the replicas' sweeps
// running Recover R times a second in all, an execution's end is noticed
// within After + max(Every, E/(PerRun·R)) plus a sweep even when its event
// is lost. The defaults, with two replicas sweeping every 30 s (up to
// 37.5 s with jitter): at most 10 calls a sweep, 40 a minute in all (a
// sixth of a second's quota); every execution checked every 10 minutes
// while E ≤ 400, noticed within about 13 minutes; with 10,000 executions
// about every 4 hours.
type ExecutionChecks struct {
	// PerRun bounds the executions one Recover run asks about; 0 turns the
	// checks off.
	PerRun int
	// Every is the least time between two checks of one execution.
	Every time.Duration
	// After leaves approvals younger than this to the status change event.
	After time.Duration
}

// DefaultExecutionChecks: see ExecutionChecks.
var DefaultExecutionChecks = ExecutionChecks{PerRun: 10, Every: 10 * time.Minute, After: 2 * time.Minute}

// ScheduledCheck is an execution's next check, as a Store keeps it.
type ScheduledCheck struct {
	ExecutionARN string
	At           time.Time
}

// checkCache remembers, per Service, before when no check can be due, so
// that a Recover with nothing to check does not read the schedule: until
// the first check the last read found not yet due, and at most until the
// last read plus the least of After and Every (no check scheduled after a
// read falls earlier).
type checkCache struct {
	mu       sync.Mutex
	notUntil time.Time
}

func (c *checkCache) skip(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return now.Before(c.notUntil)
}

func (c *checkCache) read(now, next time.Time, least time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notUntil = now.Add(least)
	if !next.IsZero() && next.Before(c.notUntil) {
		c.notUntil = next
	}
}

// checked is whether an execution ARN can be checked: a standard
// execution's (DescribeExecution does not know Express ones, which cannot
// wait for a token anyway).
func checked(arn string) bool {
	return arn != "" && !strings.Contains(arn, ":express:")
}

// scheduleFirstCheck schedules the first check of a's execution.
func (s *Service) scheduleFirstCheck(ctx context.Context, a Approval) error {
	if !checked(a.ExecutionARN) {
		return nil
	}
	if err := s.store.ScheduleCheck(ctx, a.ExecutionARN, a.CreatedAt.Add(s.ExecutionChecks.After)); err != nil {
		return fmt.Errorf("schedule the check of execution %s: %w", a.ExecutionARN, err)
	}
	return nil
}

// checkExecutions is Recover's last step: it asks about the executions
// whose check is due, at most PerRun, and closes the pending approvals of
// those that ended or are gone; one that still runs is checked again
// Every later, one without pending approvals leaves the schedule. It
// returns ctx's error if ctx ended before it was done.
func (s *Service) checkExecutions(ctx context.Context, now time.Time, rep *RecoverReport) error {
	c := s.ExecutionChecks
	if s.Executions == nil || c.PerRun <= 0 || s.checks.skip(now) {
		return nil
	}
	due, next, err := s.store.ChecksDue(ctx, now, c.PerRun)
	if err != nil {
		rep.Failed++
		rep.CheckErrors = append(rep.CheckErrors, fmt.Errorf("list the execution checks due: %w", err))
		return nil
	}
	s.checks.read(now, next, min(c.After, c.Every))
	for _, x := range due {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := s.checkExecution(ctx, x, now, rep); err != nil {
			rep.Failed++
			rep.CheckErrors = append(rep.CheckErrors, err)
		}
	}
	return nil
}

// checkExecution does one check due: it looks up the open approvals of
// the execution and, when a pending one is older than After, asks Step
// Functions about it; if it ended, it closes those (younger ones are left
// to their event). It schedules the next check, or forgets the execution
// when it has no open approval left.
func (s *Service) checkExecution(ctx context.Context, x ScheduledCheck, now time.Time, rep *RecoverReport) error {
	c := s.ExecutionChecks
	open, err := s.store.ListOpen(ctx, x.ExecutionARN, maxOpenPerExecution)
	if err != nil {
		return fmt.Errorf("list the open approvals of execution %s: %w", x.ExecutionARN, err)
	}
	var old, young []Approval
	for _, a := range open {
		switch {
		case a.Status != StatusPending || (!a.Deadline.IsZero() && !now.Before(a.Deadline.Add(s.ExpiryGrace))):
			// Claimed ones are being resumed, overdue ones expire.
		case now.Sub(a.CreatedAt) < c.After:
			young = append(young, a)
		default:
			old = append(old, a)
		}
	}
	later := func() error {
		if len(young) > 0 {
			return s.store.ScheduleCheck(ctx, x.ExecutionARN, young[0].CreatedAt.Add(c.After))
		}
		if len(open) == 0 {
			// Only if still at x.At: a request made meanwhile, which the
			// index may show a moment late, moved it later.
			return s.store.ForgetCheck(ctx, x.ExecutionARN, x.At)
		}
		return s.store.ScheduleCheck(ctx, x.ExecutionARN, now.Add(c.Every))
	}
	if len(old) == 0 {
		return later()
	}
	got, err := s.Executions.Execution(ctx, x.ExecutionARN)
	rep.Checked++
	var why Cancellation
	switch {
	case ErrorCode(err) == ENOTFOUND:
		why = Cancellation{Reason: ReasonExecutionNotFound}
	case err != nil:
		if serr := s.store.ScheduleCheck(ctx, x.ExecutionARN, now.Add(c.Every)); serr != nil {
			err = fmt.Errorf("%w (and its next check was not scheduled: %w)", err, serr)
		}
		return fmt.Errorf("check whether execution %s still runs: %w", x.ExecutionARN, err)
	case !got.Status.Ended():
		return s.store.ScheduleCheck(ctx, x.ExecutionARN, now.Add(c.Every))
	default:
		why = Ended(got)
	}
	closed, err := s.cancelAll(ctx, old, why)
	rep.Closed = append(rep.Closed, closed...)
	if err != nil {
		return err
	}
	open = young
	return later()
}
