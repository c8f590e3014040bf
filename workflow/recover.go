package workflow

import (
	"context"
	"fmt"
)

// RecoverReport counts what Recover did.
type RecoverReport struct {
	Resumed int // stale claims completed
	// Completed are the stale claims completed (a replica died between
	// recording a decision and resuming it), as stored: their messages
	// need updating, as after any decision.
	Completed []Approval
	// Expired counts pending approvals closed unanswered: past their
	// deadline (plus ExpiryGrace), or whose task a heartbeat found closed.
	Expired int
	Failed  int // attempts that failed and stay queued
	// Open counts the open (pending or claimed) approvals by age bucket
	// (Store.OpenCounts: under AgeBounds[0], under AgeBounds[1], …, older).
	// It is nil when the count could not be read.
	Open    []int
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
	// HandedOver are the hand-overs whose note nobody posted within
	// HandOverNoticeGrace (the replica that recorded one died, or Slack
	// refused its note), now taken on by this run: post the note, refresh
	// the message and the delegate's App Home.
	HandedOver []HandOver
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

// HandOver is one hand-over of an approval, as stored.
type HandOver struct {
	Approval   Approval
	Delegation Delegation
}

// Recover completes claims whose lease ran out (a process died between claim
// and resume), does the due work of the deadline lifecycle (reminders,
// escalations, onDeadline decisions, heartbeats, and expiring pending
// approvals past their deadline plus ExpiryGrace), writes the audit events
// left in final records and, with Executions set, closes pending approvals
// whose execution ended without CloseExecution being called (see
// ExecutionChecks), so nothing is left stuck and no live button outlives
// its task. Safe to run on every replica at once: every step is a
// conditional write, done by one of them.
//
// It reads only what is due, by index, a page at a time: the open
// approvals due (QueueOpen is ordered by when the sweeper next has work on
// each), the audit backlog due (not with an AuditingStore, which leaves
// none), the execution checks due (only when one can be due), and the
// count of open approvals (Store.OpenCounts). With nothing due that is one
// Query and the count.
//
// The work on each approval (take over or claim, resume, record the
// outcome) runs under a context of its own, bounded by RecoverBudget and
// not cut short by ctx: an approval claimed here is always carried to its
// outcome, rather than left claimed for a whole lease. When ctx ends,
// Recover starts no further approval and returns ctx's error.
func (s *Service) Recover(ctx context.Context) (RecoverReport, error) {
	var rep RecoverReport
	now := s.Now().UTC()
	if err := s.workDue(ctx, now, &rep); err != nil {
		return rep, err
	}
	if err := s.writeAuditBacklog(ctx, now, &rep); err != nil {
		return rep, err
	}
	err := s.checkExecutions(ctx, now, &rep)
	if counts, cerr := s.store.OpenCounts(ctx); cerr == nil {
		rep.Open = counts
	}
	if err != nil {
		return rep, fmt.Errorf("recovery stopped before checking every execution due: %w", err)
	}
	return rep, nil
}

// recoverOne claims an approval with claim and resumes it, under the
// approval's own budget, counting the result in done or rep.Failed, and
// returns the approval as it then stands and whether it was completed. A
// claim somebody else holds counts nowhere.
func (s *Service) recoverOne(ctx context.Context, rep *RecoverReport, done *int, claim func(context.Context) (Approval, error)) (Approval, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.budget())
	defer cancel()
	c, err := claim(ctx)
	if err != nil {
		if ErrorCode(err) != ECONFLICT {
			rep.Failed++
		}
		return Approval{}, false
	}
	final, err := s.resume(ctx, c)
	if err != nil && !(ErrorCode(err) == EEXPIRED && final.Status == StatusExpired) {
		rep.Failed++
		return Approval{}, false
	}
	*done++
	return s.auditCounted(ctx, final, rep), true
}
