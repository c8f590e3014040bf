package workflow

import (
	"context"
	"fmt"
	"time"
)

// RecoverReport counts what Recover did.
type RecoverReport struct {
	Resumed int // stale claims completed
	// Expired counts pending approvals closed unanswered: past their
	// deadline (plus ExpiryGrace), or whose task a heartbeat found closed.
	Expired int
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

	// The steps of the deadline lifecycle this run did. Each step is done
	// by one run of one replica, recorded before it is reported: posting
	// what it says is the caller's, once.
	//
	// Reminded are the approvals reminded: say so in each one's thread,
	// mentioning StillToDecide (also the event's Users).
	Reminded []Approval
	// Escalated are the approvals escalated: Policy.EscalateTo may now
	// decide; mention them.
	Escalated []Approval
	// Decided are the approvals decided by their onDeadline (Decision.
	// DecidedBy is DecidedByDeadline), as stored once resumed: their
	// messages need updating, as after any decision.
	Decided []Approval
	// Heartbeats counts the heartbeats sent; HeartbeatErrors are those
	// that failed (tried again next run).
	Heartbeats      int
	HeartbeatErrors []error
	// Audited counts the audit events written; AuditErrors are the writes
	// that failed (tried again next run).
	Audited     int
	AuditErrors []error
}

// Recover completes claims whose lease ran out (a process died between claim
// and resume), does the due work of the deadline lifecycle (reminders,
// escalations, onDeadline decisions, heartbeats, and expiring pending
// approvals past their deadline plus ExpiryGrace), writes the audit events
// left in records and, with Executions set, closes pending approvals whose
// execution ended without CloseExecution being called (see
// ExecutionChecks), so nothing is left stuck and no live button outlives
// its task. Safe to run on every replica at once: every step is a
// conditional write, done by one of them. Each run reads the claimed
// queue, the pending approvals that are due (QueuePending is ordered by
// Due), the audit backlog and, for the execution checks and Open, the
// pending queue whole (Queries on the sparse queue index, paged by the
// store).
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
			return s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Reclaim(a.ClaimedAt, now) })
		})
		closed[a.ID] = rep.Resumed > resumed
	}
	if err := s.advanceDue(ctx, now, &rep, closed); err != nil {
		return rep, err
	}
	if err := s.writeAuditBacklog(ctx, now, &rep); err != nil {
		return rep, err
	}
	pending, err := s.store.List(ctx, QueuePending, time.Time{}, listAll)
	if err != nil {
		return rep, fmt.Errorf("list pending approvals: %w", err)
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
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.budget())
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
	s.auditCounted(ctx, final, rep)
}
