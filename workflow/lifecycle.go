package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// dueBatch is how many due approvals one query of the deadline work reads.
const dueBatch = 100

// advanced is what one advance did to an approval.
type advanced struct {
	reminded, escalated, beat bool
	// aged: the approval moved to an older bucket of the open count.
	aged bool
	// claimed: the approval was claimed with its onDeadline decision, or
	// to expire it; it is to be resumed.
	claimed bool
	// told counts the hand-overs whose note this run takes on (Told now).
	told int
}

// advance does the due work of the deadline lifecycle on the pending
// approval at now: it marks the steps due done, recording a reminder (one
// however many were due) and the escalation, moves the next heartbeat on
// when one was sent (beat), moves it to the AgeBucket its age reached,
// and claims the approval with its onDeadline
// decision at that step, or to expire it when the deadline plus grace
// passed or its task was found closed (taskClosed). With nothing to do it
// is ErrUnchanged, or nil when a's queue entry is stale (due before now
// while nothing is: a record written by an older version), so that the
// write moves it.
func (a *Approval) advance(now time.Time, grace time.Duration, beat, taskClosed bool) (advanced, error) {
	var did advanced
	if a.Status != StatusPending {
		return did, ErrUnchanged
	}
	deadlineStep := false
	for i := range a.Steps {
		s := &a.Steps[i]
		if !s.DoneAt.IsZero() || s.At.After(now) {
			continue
		}
		s.DoneAt = now
		switch s.Kind {
		case StepRemind:
			did.reminded = true
		case StepEscalate:
			did.escalated = true
		case StepDeadline:
			deadlineStep = true
		}
	}
	if did.escalated {
		a.record(AuditEvent{At: now, Type: EventEscalated, Users: a.Policy.EscalateTo})
	}
	overdue := !a.Deadline.IsZero() && !now.Before(a.Deadline.Add(grace))
	closing := deadlineStep || taskClosed || overdue // nobody is told to act on it any more
	if closing {
		did.reminded = false
	}
	if did.reminded {
		a.record(AuditEvent{At: now, Type: EventReminded, Users: a.StillToDecide()})
	}
	if beat && a.Policy.Heartbeat > 0 && !a.HeartbeatAt.After(now) {
		a.HeartbeatAt = now.Add(a.Policy.Heartbeat)
		did.beat = true
	}
	if !closing {
		for _, i := range a.untold(now) {
			a.Delegations[i].Told = now
			did.told++
		}
	}
	if b := ageBucket(now.Sub(a.CreatedAt)); b > a.AgeBucket {
		a.AgeBucket = b
		did.aged = true
	}
	var err error
	switch {
	case deadlineStep && a.Policy.OnDeadline != "":
		err = a.Claim(Decision{Action: a.Policy.OnDeadline, DraftIndex: NoDraft, DecidedBy: DecidedByDeadline, DecidedAt: now}, now)
		did.claimed = true
	case taskClosed:
		err = a.Claim(Decision{Action: ActionExpire, DraftIndex: NoDraft, DecidedAt: now, Text: ReasonTaskGone}, now)
		did.claimed = true
	case overdue:
		err = a.Claim(Decision{Action: ActionExpire, DraftIndex: NoDraft, DecidedAt: now}, now)
		did.claimed = true
	}
	switch {
	case err != nil:
		return advanced{}, err
	case did != advanced{}:
		return did, nil
	case a.Due().After(now):
		return did, nil
	}
	return did, ErrUnchanged
}

// Advance does the due work on open approvals, as Recover does first:
// reminders, escalations, onDeadline decisions, heartbeats, expiring
// pending approvals past their deadline plus ExpiryGrace, and completing
// claims whose lease ran out, each done once however many replicas run
// it. It reads only the approvals due (see workDue), so it may run more
// often than Recover. The report holds what it did (Reminded, Escalated,
// Decided, Expired, Resumed, Heartbeats, …). Like Recover, it carries
// each approval it started through, and returns ctx's error when ctx
// ended first.
func (s *Service) Advance(ctx context.Context) (RecoverReport, error) {
	var rep RecoverReport
	err := s.workDue(ctx, s.Now().UTC(), &rep)
	return rep, err
}

// workDue is Recover's work on open approvals: it reads those due by now
// (QueueOpen is ordered by when the sweeper next has work on each), a page
// at a time, and advances each pending one (advanceOne) and takes over
// each claim whose lease ran out, the longest due first. Only due
// approvals are read; each is read once more, consistently, before
// anything is done to it. When replicas work on the same approval at
// once, the store's conditional write lets one of them do each step. It
// returns ctx's error if ctx ended first.
func (s *Service) workDue(ctx context.Context, now time.Time, rep *RecoverReport) error {
	var after Cursor
	for {
		due, next, err := s.store.List(ctx, QueueOpen, after, now, dueBatch)
		if err != nil {
			return fmt.Errorf("list the approvals due: %w", err)
		}
		for _, l := range due {
			if ctx.Err() != nil {
				return fmt.Errorf("recovery stopped before doing everything due: %w", ctx.Err())
			}
			switch {
			case l.Status == StatusPending:
				s.advanceOne(ctx, l.ID, now, rep)
			case l.Status == StatusClaimed && now.Sub(l.ClaimedAt) >= s.claimLease():
				final, ok := s.recoverOne(ctx, rep, &rep.Resumed, func(ctx context.Context) (Approval, error) {
					return s.store.Update(ctx, l.ID, func(x *Approval) error { return x.Reclaim(l.ClaimedAt, now) })
				})
				if ok {
					rep.Completed = append(rep.Completed, final)
				}
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// advanceOne advances one approval under its own budget (see Recover):
// it sends the heartbeat due, records what is due, resumes the task with
// an onDeadline decision or to expire it, and writes the audit events. It
// reports whether the approval is now final.
func (s *Service) advanceOne(ctx context.Context, id string, now time.Time, rep *RecoverReport) (final bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.budget())
	defer cancel()
	a, err := s.store.Get(ctx, id)
	if err != nil {
		if ErrorCode(err) != ENOTFOUND {
			rep.Failed++
		}
		return false
	}
	beat, closed := false, false
	if a.Status == StatusPending && a.Policy.Heartbeat > 0 && !a.HeartbeatAt.After(now) && s.resumer != nil {
		waiting, err := s.resumer.Waiting(ctx, a)
		switch {
		case err != nil:
			rep.Failed++
			rep.HeartbeatErrors = append(rep.HeartbeatErrors, fmt.Errorf("send the heartbeat of approval %s: %w", a.ID, err))
		case waiting:
			beat = true
		default:
			closed = true
		}
	}
	if dry := a.Clone(); !closed {
		if _, err := dry.advance(now, s.ExpiryGrace, beat, false); errors.Is(err, ErrUnchanged) {
			s.auditCounted(ctx, a, rep)
			return a.Status.Final()
		}
	}
	var did advanced
	stored, err := s.store.Update(ctx, id, func(x *Approval) error {
		var err error
		did, err = x.advance(now, s.ExpiryGrace, beat, closed)
		return err
	})
	switch {
	case ErrorCode(err) == ECONFLICT:
		return false
	case err != nil:
		rep.Failed++
		return false
	}
	if did.beat {
		rep.Heartbeats++
	}
	if did.escalated {
		rep.Escalated = append(rep.Escalated, stored)
	}
	if did.reminded {
		rep.Reminded = append(rep.Reminded, stored)
	}
	if did.told > 0 {
		for _, d := range stored.Delegations {
			if d.Told.Equal(now) {
				rep.HandedOver = append(rep.HandedOver, HandOver{Approval: stored, Delegation: d})
			}
		}
	}
	if did.claimed {
		final, err := s.resume(ctx, stored)
		switch {
		case err != nil && !(ErrorCode(err) == EEXPIRED && final.Status == StatusExpired):
			rep.Failed++
			return false
		case final.Status == StatusExpired:
			rep.Expired++
		default:
			rep.Decided = append(rep.Decided, final)
		}
		stored = final
	}
	s.auditCounted(ctx, stored, rep)
	return stored.Status.Final()
}

func (s *Service) budget() time.Duration {
	if s.RecoverBudget <= 0 {
		return DefaultRecoverBudget
	}
	return s.RecoverBudget
}
