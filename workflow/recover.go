package workflow

import (
	"context"
	"fmt"
	"time"
)

// RecoverReport counts what Recover did.
type RecoverReport struct {
	Resumed int // stale claims completed
	Expired int // pending approvals past their deadline closed
	Failed  int // attempts that failed and stay queued
	// Open holds the request time (CreatedAt) of every open (pending or
	// claimed) approval the queues listed that this run did not close. It
	// is nil when the run ended before it had read both queues.
	Open    []time.Time
	Checked int // executions asked about (ExecutionChecks)
	// Closed are the pending approvals closed because their execution
	// ended or is gone, as stored: their messages need updating.
	Closed []Approval
	// CheckErrors are the failed execution checks, at most
	// ExecutionChecks.PerRun; each is tried again later.
	CheckErrors []error
}

// Recover completes claims whose lease ran out (a process died between claim
// and resume), expires pending approvals past their deadline and, with
// Executions set, closes pending approvals whose execution ended without
// CloseExecution being called (see ExecutionChecks), so nothing is left
// stuck and no live button outlives its task. Safe to run on every
// replica at once. Each run reads the pending and claimed queues whole
// (Queries on the sparse queue index, paged by the store).
//
// The work on each approval (take over or claim, resume, record the
// outcome) runs under a context of its own, bounded by RecoverBudget and
// not cut short by ctx: an approval claimed here is always carried to its
// outcome, rather than left claimed for a whole lease. When ctx ends,
// Recover starts no further approval and returns ctx's error.
func (s *Service) Recover(ctx context.Context) (RecoverReport, error) {
	var rep RecoverReport
	now := s.Now().UTC()
	claimed, err := s.store.List(ctx, QueueClaimed, time.Time{}, listAll)
	if err != nil {
		return rep, fmt.Errorf("list claimed approvals: %w", err)
	}
	closed := map[string]bool{}
	for _, a := range claimed {
		if now.Sub(a.ClaimedAt) < s.ClaimLease {
			continue
		}
		if ctx.Err() != nil {
			return rep, fmt.Errorf("recovery stopped before completing every stale claim: %w", ctx.Err())
		}
		resumed := rep.Resumed
		s.recoverOne(ctx, &rep, &rep.Resumed, func(ctx context.Context) (Approval, error) {
			return s.store.Reclaim(ctx, a.ID, a.ClaimedAt, now)
		})
		closed[a.ID] = rep.Resumed > resumed
	}
	pending, err := s.store.List(ctx, QueuePending, time.Time{}, listAll)
	if err != nil {
		return rep, fmt.Errorf("list pending approvals: %w", err)
	}
	for _, a := range pending {
		if a.Deadline.IsZero() || now.Before(a.Deadline.Add(s.ExpiryGrace)) {
			continue
		}
		if ctx.Err() != nil {
			rep.Open = openSince(closed, claimed, pending)
			return rep, fmt.Errorf("recovery stopped before expiring every overdue approval: %w", ctx.Err())
		}
		expired := rep.Expired
		s.recoverOne(ctx, &rep, &rep.Expired, func(ctx context.Context) (Approval, error) {
			return s.store.Claim(ctx, a.ID, Decision{Action: ActionExpire, DraftIndex: NoDraft, DecidedAt: now}, now)
		})
		closed[a.ID] = rep.Expired > expired
	}
	err = s.checkExecutions(ctx, pending, now, &rep)
	for _, c := range rep.Closed {
		closed[c.ID] = true
	}
	rep.Open = openSince(closed, claimed, pending)
	if err != nil {
		return rep, fmt.Errorf("recovery stopped before checking every execution due: %w", err)
	}
	return rep, nil
}

// openSince is the request time of every listed approval not in closed.
func openSince(closed map[string]bool, queues ...[]Approval) []time.Time {
	open := []time.Time{}
	for _, q := range queues {
		for _, a := range q {
			if !closed[a.ID] {
				open = append(open, a.CreatedAt)
			}
		}
	}
	return open
}

// recoverOne claims an approval with claim and resumes it, under the
// approval's own budget, counting the result in done or rep.Failed. A
// claim somebody else holds counts nowhere.
func (s *Service) recoverOne(ctx context.Context, rep *RecoverReport, done *int, claim func(context.Context) (Approval, error)) {
	budget := s.RecoverBudget
	if budget <= 0 {
		budget = DefaultRecoverBudget
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget)
	defer cancel()
	c, err := claim(ctx)
	if err != nil {
		if ErrorCode(err) != ECONFLICT {
			rep.Failed++
		}
		return
	}
	final, err := s.resume(ctx, c)
	if err != nil && !(ErrorCode(err) == EEXPIRED && final.Status == StatusExpired) {
		rep.Failed++
		return
	}
	*done++
}
