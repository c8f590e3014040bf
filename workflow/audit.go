package workflow

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// EventType is what happened to an approval, in the audit trail.
type EventType string

// The events of an approval's life.
const (
	EventRequested EventType = "requested" // the notifier stored the request
	EventPosted    EventType = "posted"    // its message was recorded
	EventReminded  EventType = "reminded"  // a reminder step (Users: who may still decide)
	EventEscalated EventType = "escalated" // the escalation step (Users: EscalateTo)
	EventDelegated EventType = "delegated" // Actor handed it to Users[0]
	EventVoted     EventType = "voted"     // Actor's approval counted towards the quorum
	EventDecided   EventType = "decided"   // the decision was taken (claimed)
	EventResumed   EventType = "resumed"   // the execution received the decision
	EventClosed    EventType = "closed"    // it closed without resuming its task (Status, Reason)
)

// AuditEvent is one event of an approval, as the audit trail keeps it and
// -export-audit writes it (one JSON object a line). It never holds the
// task token.
type AuditEvent struct {
	ApprovalID string    `json:"approvalId"`
	Seq        int       `json:"seq"` // 1, 2, … per approval
	At         time.Time `json:"at"`
	Type       EventType `json:"type"`
	// Actor is who acted: a Slack user ID, DecidedByDeadline, or "" for
	// the system.
	Actor  string `json:"actor,omitempty"`
	Action Action `json:"action,omitempty"`
	// DraftIndex is the draft approved (0-based), if any.
	DraftIndex *int `json:"draftIndex,omitempty"`
	// Comment is a vote's or an approval's comment, a rejection's reason,
	// a change request's free text.
	Comment string `json:"comment,omitempty"`
	Preset  string `json:"preset,omitempty"`
	// Edited: the approver edited the draft before approving it (the
	// edited text is in Record.Decided).
	Edited bool `json:"edited,omitempty"`
	// Users are the approvers (requested), who may still decide
	// (reminded), EscalateTo (escalated), the delegate (delegated).
	Users []string `json:"users,omitempty"`
	// Status is the final status (resumed, closed); Reason why it closed.
	Status Status `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`

	// Of the requested event: the request.
	ExecutionARN string     `json:"executionArn,omitempty"`
	StateName    string     `json:"stateName,omitempty"`
	Title        string     `json:"title,omitempty"`
	RequestedBy  string     `json:"requestedBy,omitempty"`
	Deadline     *time.Time `json:"deadline,omitempty"`
	Quorum       int        `json:"quorum,omitempty"`
	EscalateTo   []string   `json:"escalateTo,omitempty"`
	OnDeadline   Action     `json:"onDeadline,omitempty"`
	// Of the requested and posted events: where the request is.
	Channel   string `json:"channel,omitempty"`
	MessageTS string `json:"messageTs,omitempty"`

	// Record is, on a decision's events (voted, decided), what the
	// person saw and what they decided, so that the event alone answers
	// who approved exactly what, when and why after the approval's record
	// is purged (see DecisionRecord). The approval's own record does not
	// hold it: it is filled in when the event is written to the AuditLog.
	Record *DecisionRecord `json:"record,omitempty"`
}

// Clone returns a deep copy of e.
func (e AuditEvent) Clone() AuditEvent {
	e.Users = slices.Clone(e.Users)
	e.EscalateTo = slices.Clone(e.EscalateTo)
	if e.DraftIndex != nil {
		i := *e.DraftIndex
		e.DraftIndex = &i
	}
	if e.Deadline != nil {
		d := *e.Deadline
		e.Deadline = &d
	}
	if e.Record != nil {
		r := e.Record.clone()
		e.Record = &r
	}
	return e
}

// PersonalAct reports whether e is something its Actor decided, which
// their history lists: a vote, a decision or a delegation by a person.
func (e AuditEvent) PersonalAct() bool {
	switch e.Type {
	case EventVoted, EventDecided, EventDelegated:
		return IsUserID(e.Actor)
	}
	return false
}

// HistoryEntry is a person's latest act on one approval: the vote,
// decision or delegation (Event), and where the request is.
type HistoryEntry struct {
	Event     AuditEvent
	Title     string
	Channel   string
	MessageTS string
}

// AuditLog keeps the audit trail, each event its own record, kept for the
// log's retention whatever happens to the approval's record.
type AuditLog interface {
	// Append writes the events of a (from its AuditOutbox) and updates the
	// history of the people who acted in them (PersonalAct). Writing an
	// event again changes nothing, and a history entry never goes back to
	// an older event, so a retry after a partial failure is safe.
	Append(ctx context.Context, a Approval, events []AuditEvent) error
	// History returns up to limit of user's history entries (one per
	// approval: their latest act on it), newest first.
	History(ctx context.Context, user string, limit int) ([]HistoryEntry, error)
	// Export calls fn with every event whose At is in [since, until), in
	// time order (then by approval and Seq), and stops at fn's first
	// error, returning it.
	Export(ctx context.Context, since, until time.Time, fn func(AuditEvent) error) error
}

// DefaultAuditRetention is how long the audit trail is kept by default.
const DefaultAuditRetention = 400 * 24 * time.Hour

// MaxHistory bounds DecidedBy's limit.
const MaxHistory = 100

// audit writes a's audit events to the AuditLog and drops them from its
// record. A failure never fails the caller: the events stay in the record
// (on QueuePending or QueueAudit, where Recover writes them later) and
// OnAuditError is told. It returns a as it now stands.
func (s *Service) audit(ctx context.Context, a Approval) Approval {
	if _, itself := s.store.(AuditingStore); itself || s.Audit == nil || len(a.AuditOutbox) == 0 {
		return a
	}
	written, err := s.writeAudit(ctx, a)
	if err != nil {
		if s.OnAuditError != nil {
			s.OnAuditError(a, err)
		}
		return a
	}
	return written
}

func (s *Service) writeAudit(ctx context.Context, a Approval) (Approval, error) {
	events := WithRecords(a, a.AuditOutbox)
	if err := s.Audit.Append(ctx, a, events); err != nil {
		return a, fmt.Errorf("write %d audit events of approval %s: %w", len(events), a.ID, err)
	}
	last := events[len(events)-1].Seq
	stored, err := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Audited(last) })
	if err != nil {
		return a, fmt.Errorf("drop the written audit events of approval %s from its record: %w", a.ID, err)
	}
	return stored, nil
}

// DefaultAuditRetry spaces the writes of a final approval's audit events
// that keep failing: a minute after the first failure, doubling up to an
// hour.
var DefaultAuditRetry = MessageRetry{Base: time.Minute, Max: time.Hour}

// writeAuditBacklog is Recover's step for final approvals whose audit
// events are not all written and due (QueueAudit): one page a run; a
// failed write backs its approval off (Approval.AuditFailed), so the page
// moves on to the others.
func (s *Service) writeAuditBacklog(ctx context.Context, now time.Time, rep *RecoverReport) error {
	if _, none := s.store.(AuditingStore); s.Audit == nil || none {
		return nil
	}
	backlog, _, err := s.store.List(ctx, QueueAudit, "", now, dueBatch)
	if err != nil {
		return fmt.Errorf("list approvals with audit events to write: %w", err)
	}
	for _, l := range backlog {
		if ctx.Err() != nil {
			return fmt.Errorf("recovery stopped before writing every audit event due: %w", ctx.Err())
		}
		a, err := s.store.Get(ctx, l.ID)
		if err != nil {
			rep.AuditErrors = append(rep.AuditErrors, fmt.Errorf("read approval %s to write its audit events: %w", l.ID, err))
			continue
		}
		if written := s.auditCounted(ctx, a, rep); len(written.AuditOutbox) > 0 {
			_, _ = s.store.Update(ctx, a.ID, func(x *Approval) error { return x.AuditFailed(now, DefaultAuditRetry) })
		}
	}
	return nil
}

// auditCounted writes a's audit events like audit, counting them, or the
// failure, in rep. It returns a as it now stands.
func (s *Service) auditCounted(ctx context.Context, a Approval, rep *RecoverReport) Approval {
	if _, itself := s.store.(AuditingStore); itself || s.Audit == nil || len(a.AuditOutbox) == 0 {
		return a
	}
	written, err := s.writeAudit(ctx, a)
	if err != nil {
		rep.AuditErrors = append(rep.AuditErrors, err)
		return a
	}
	rep.Audited += len(a.AuditOutbox)
	return written
}

// DecidedBy returns user's history: up to limit (at most MaxHistory) of
// the approvals they voted on, decided or handed on, their latest act on
// each, newest first. Errors: EINVALID for no user or a limit below 1.
func (s *Service) DecidedBy(ctx context.Context, user string, limit int) ([]HistoryEntry, error) {
	switch {
	case !IsUserID(user):
		return nil, Errorf(EINVALID, "a history belongs to a Slack user")
	case limit < 1:
		return nil, Errorf(EINVALID, "ask for at least one entry of a history")
	case s.Audit == nil:
		return nil, fmt.Errorf("approval service has no audit log configured")
	}
	h, err := s.Audit.History(ctx, user, min(limit, MaxHistory))
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", user, err)
	}
	return h, nil
}

// ExportAudit calls fn with every audit event whose time is in [since,
// until), in time order. Errors: EINVALID for an empty or reversed range.
func (s *Service) ExportAudit(ctx context.Context, since, until time.Time, fn func(AuditEvent) error) error {
	switch {
	case since.IsZero() || until.IsZero() || !since.Before(until):
		return Errorf(EINVALID, "the export needs a start before its end")
	case s.Audit == nil:
		return fmt.Errorf("approval service has no audit log configured")
	}
	return s.Audit.Export(ctx, since.UTC(), until.UTC(), fn)
}
