package workflowtest

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// AuditLog is an in-memory workflow.AuditLog with the DynamoDB one's
// semantics: an event written again changes nothing, a history entry
// never goes back to an older event. It is safe for concurrent use.
type AuditLog struct {
	mu      sync.Mutex
	events  map[eventKey]workflow.AuditEvent
	history map[historyKey]workflow.HistoryEntry
	err     error
}

type eventKey struct {
	approval string
	seq      int
}

type historyKey struct{ user, approval string }

var _ workflow.AuditLog = (*AuditLog)(nil)

// NewAuditLog returns an empty AuditLog.
func NewAuditLog() *AuditLog {
	return &AuditLog{events: map[eventKey]workflow.AuditEvent{}, history: map[historyKey]workflow.HistoryEntry{}}
}

// SetErr makes every later call fail with err (an outage); nil heals.
func (l *AuditLog) SetErr(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.err = err
}

// Append implements workflow.AuditLog.
func (l *AuditLog) Append(_ context.Context, a workflow.Approval, events []workflow.AuditEvent) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	for _, e := range events {
		l.events[eventKey{e.ApprovalID, e.Seq}] = e.Clone()
		if !e.PersonalAct() {
			continue
		}
		k := historyKey{e.Actor, a.ID}
		if old, ok := l.history[k]; !ok || old.Event.Seq < e.Seq {
			l.history[k] = workflow.HistoryEntry{Event: e.Clone(), Title: a.Title, Channel: a.Channel, MessageTS: a.MessageTS}
		}
	}
	return nil
}

// History implements workflow.AuditLog.
func (l *AuditLog) History(_ context.Context, user string, limit int) ([]workflow.HistoryEntry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, l.err
	}
	var out []workflow.HistoryEntry
	for k, h := range l.history {
		if k.user == user {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b workflow.HistoryEntry) int {
		return cmp.Or(b.Event.At.Compare(a.Event.At), strings.Compare(b.Event.ApprovalID, a.Event.ApprovalID))
	})
	return out[:min(len(out), limit)], nil
}

// Export implements workflow.AuditLog.
func (l *AuditLog) Export(_ context.Context, since, until time.Time, fn func(workflow.AuditEvent) error) error {
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return l.err
	}
	var out []workflow.AuditEvent
	for _, e := range l.events {
		if !e.At.Before(since) && e.At.Before(until) {
			out = append(out, e.Clone())
		}
	}
	l.mu.Unlock()
	sortEvents(out)
	for _, e := range out {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Events returns every event written, in time order.
func (l *AuditLog) Events() []workflow.AuditEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []workflow.AuditEvent
	for _, e := range l.events {
		out = append(out, e.Clone())
	}
	sortEvents(out)
	return out
}

func sortEvents(events []workflow.AuditEvent) {
	slices.SortFunc(events, func(a, b workflow.AuditEvent) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.ApprovalID, b.ApprovalID), cmp.Compare(a.Seq, b.Seq))
	})
}
