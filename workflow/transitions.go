package workflow

import (
	"cmp"
	"errors"
	"time"
)

// The changes an approval goes through. Each checks that it may happen,
// changes the approval and records its audit events; the Service applies
// them with Store.Update, so that each lands exactly once however many
// replicas try. A change refused is an *Error (ECONFLICT unless said
// otherwise) carrying the approval; ErrUnchanged means there was nothing
// to do.

// ErrUnchanged is returned by a change that leaves the approval as it is:
// Store.Update then writes nothing and returns the stored approval.
var ErrUnchanged = errors.New("unchanged")

// storeConflict is an ECONFLICT error carrying a.
func storeConflict(a Approval, format string, args ...any) *Error {
	err := Errorf(ECONFLICT, format, args...)
	err.Approval = &a
	return err
}

// Claim records d and moves the pending approval to claimed at now,
// counting one attempt. A person's approval is recorded as their vote (the
// output's "approvals"). It records the decision event, except for
// ActionExpire, whose event comes when the approval closes.
func (a *Approval) Claim(d Decision, now time.Time) error {
	if a.Status != StatusPending {
		return storeConflict(*a, "approval %s is %s, not pending", a.ID, a.Status)
	}
	if d.Action == ActionApprove && IsUserID(d.DecidedBy) && !a.hasVoted(d.DecidedBy) {
		a.Votes = append(a.Votes, Vote{UserID: d.DecidedBy, DraftIndex: d.DraftIndex, Edited: d.Edited, Comment: d.Text, At: now})
	}
	a.Status = StatusClaimed
	a.Decision = &d
	a.ClaimedAt = now
	a.Attempts++
	if d.Action != ActionExpire {
		a.record(AuditEvent{At: now, Type: EventDecided, Actor: d.DecidedBy, Action: d.Action, DraftIndex: draftOf(d), Comment: d.Text, Preset: d.Preset, Edited: d.Edited != ""})
	}
	return nil
}

// Reclaim takes over the claim taken at claimedAt, keeping its decision:
// the claim is now from now, and counts one more attempt.
func (a *Approval) Reclaim(claimedAt, now time.Time) error {
	if a.Status != StatusClaimed || !a.ClaimedAt.Equal(claimedAt) {
		return storeConflict(*a, "approval %s is no longer held by the claim being taken over", a.ID)
	}
	a.ClaimedAt = now
	a.Attempts++
	return nil
}

// Finish moves the claimed approval to the final status at now (Close:
// the task token goes) and records how it ended: resumed with its
// decision (StatusDecided), or closed (StatusExpired).
func (a *Approval) Finish(status Status, now time.Time) error {
	if !status.Final() {
		return Errorf(EINVALID, "cannot finish approval %s as %q: not a final status", a.ID, status)
	}
	if a.Status != StatusClaimed {
		return storeConflict(*a, "approval %s is %s, not claimed", a.ID, a.Status)
	}
	a.Close(status, now)
	d := a.Decision
	switch {
	case status == StatusDecided && d != nil:
		a.record(AuditEvent{At: now, Type: EventResumed, Actor: d.DecidedBy, Action: d.Action, Status: status})
	case d != nil && d.Action == ActionExpire:
		a.record(AuditEvent{At: now, Type: EventClosed, Status: status, Reason: cmp.Or(d.Text, ReasonNoDecision)})
	default:
		a.record(AuditEvent{At: now, Type: EventClosed, Status: status, Reason: ReasonTaskClosed})
	}
	return nil
}

// Reasons recorded when an approval closes without resuming its task.
const (
	ReasonNoDecision = "nobody decided before the deadline"
	ReasonTaskClosed = "the task had timed out or was closed before the decision reached it"
	ReasonTaskGone   = "a heartbeat found the task no longer waiting"
)

// Cancel closes the pending approval at now without a decision, for the
// reason c gives (Close: the task token goes).
func (a *Approval) Cancel(c Cancellation, now time.Time) error {
	if a.Status != StatusPending {
		return storeConflict(*a, "approval %s is %s, not pending", a.ID, a.Status)
	}
	a.Cancellation = &c
	a.Close(StatusCancelled, now)
	a.record(AuditEvent{At: now, Type: EventClosed, Status: StatusCancelled, Reason: c.Reason})
	return nil
}

// SetMessage records where the request message was posted, once, at now.
// The same message again is ErrUnchanged; another message than the one
// recorded is ECONFLICT. A final approval whose message is recorded late
// lands on QueueMessage, so its message gets fixed.
func (a *Approval) SetMessage(channel, ts string, now time.Time) error {
	switch {
	case a.Channel == channel && a.MessageTS == ts:
		return ErrUnchanged
	case a.MessageTS != "":
		return storeConflict(*a, "approval %s has another message recorded", a.ID)
	}
	a.Channel, a.MessageTS = channel, ts
	a.MessageSynced = false
	a.record(AuditEvent{At: now, Type: EventPosted, Channel: channel, MessageTS: ts})
	return nil
}

// MarkMessageSynced records that the Slack message shows the final
// status, which takes the approval off QueueMessage. An approval that is
// not final yet is ECONFLICT.
func (a *Approval) MarkMessageSynced() error {
	switch {
	case !a.Status.Final():
		return storeConflict(*a, "approval %s is %s, not final", a.ID, a.Status)
	case a.MessageSynced:
		return ErrUnchanged
	}
	a.MessageSynced = true
	return nil
}

// MessageFailed records a failed update of a's message at now: one more
// attempt, and the next try after p's delay, or, at p.Attempts, giving up
// (a leaves QueueMessage). An approval not on QueueMessage is ECONFLICT.
func (a *Approval) MessageFailed(now time.Time, p MessageRetry) error {
	if a.Queue() != QueueMessage {
		return storeConflict(*a, "approval %s waits for no message update", a.ID)
	}
	a.MessageAttempts++
	if a.MessageAttempts >= p.Attempts {
		a.MessageGaveUp = true
		a.MessageRetryAt = time.Time{}
		return nil
	}
	a.MessageRetryAt = now.Add(p.Delay(a.MessageAttempts))
	return nil
}

// Audited drops the events up to seq from the outbox: the AuditLog holds
// them. With none to drop it is ErrUnchanged.
func (a *Approval) Audited(seq int) error {
	n := 0
	for n < len(a.AuditOutbox) && a.AuditOutbox[n].Seq <= seq {
		n++
	}
	if n == 0 {
		return ErrUnchanged
	}
	a.AuditOutbox = append([]AuditEvent(nil), a.AuditOutbox[n:]...)
	return nil
}

// record appends e, numbered, to the outbox.
func (a *Approval) record(e AuditEvent) {
	a.AuditSeq++
	e.ApprovalID, e.Seq = a.ID, a.AuditSeq
	a.AuditOutbox = append(a.AuditOutbox, e)
}

// draftOf is the draft a decision approves, for its audit event.
func draftOf(d Decision) *int {
	if d.Action != ActionApprove || d.DraftIndex < 0 {
		return nil
	}
	i := d.DraftIndex
	return &i
}
