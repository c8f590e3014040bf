// Package workflowtest provides stateful in-memory fakes of the workflow
// interfaces, for tests of packages that sit on top of the domain (the Slack
// bot, the notifier). They keep the same conditional semantics as the real
// adapters; the DynamoDB store itself is tested against DynamoDB Local.
package workflowtest

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// Store is an in-memory workflow.Store. It is safe for concurrent use.
type Store struct {
	mu        sync.Mutex
	approvals map[string]workflow.Approval
	byToken   map[string]string
	// Err, when set, is returned by every call (an outage).
	err error
}

var _ workflow.Store = (*Store)(nil)

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{approvals: map[string]workflow.Approval{}, byToken: map[string]string{}}
}

// SetErr makes every later call fail with err (nil heals).
func (s *Store) SetErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Create implements workflow.Store.
func (s *Store) Create(_ context.Context, a workflow.Approval) (workflow.Approval, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return workflow.Approval{}, false, s.err
	}
	if id, ok := s.byToken[a.TaskToken.Reveal()]; ok {
		return clone(s.approvals[id]), false, nil
	}
	if _, ok := s.approvals[a.ID]; ok {
		return workflow.Approval{}, false, workflow.Errorf(workflow.ECONFLICT, "approval %s exists", a.ID)
	}
	s.approvals[a.ID] = clone(a)
	s.byToken[a.TaskToken.Reveal()] = a.ID
	return clone(a), true, nil
}

// Get implements workflow.Store.
func (s *Store) Get(_ context.Context, id string) (workflow.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.get(id)
	return clone(a), err
}

func (s *Store) get(id string) (workflow.Approval, error) {
	if s.err != nil {
		return workflow.Approval{}, s.err
	}
	a, ok := s.approvals[id]
	if !ok {
		return workflow.Approval{}, workflow.Errorf(workflow.ENOTFOUND, "no approval %s", id)
	}
	return a, nil
}

// update applies f to the approval if cond holds, atomically.
func (s *Store) update(id string, cond func(workflow.Approval) bool, f func(*workflow.Approval)) (workflow.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.get(id)
	if err != nil {
		return workflow.Approval{}, err
	}
	if !cond(a) {
		return workflow.Approval{}, workflow.Errorf(workflow.ECONFLICT, "approval %s is %s", id, a.Status)
	}
	f(&a)
	s.approvals[id] = a
	return clone(a), nil
}

// SetMessage implements workflow.Store: the first message recorded stays.
func (s *Store) SetMessage(_ context.Context, id, channel, ts string) (workflow.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.get(id)
	switch {
	case err != nil:
		return workflow.Approval{}, err
	case a.Channel == channel && a.MessageTS == ts:
		return clone(a), nil
	case a.MessageTS != "":
		e := workflow.Errorf(workflow.ECONFLICT, "approval %s has another message recorded", id)
		c := clone(a)
		e.Approval = &c
		return workflow.Approval{}, e
	}
	a.Channel, a.MessageTS, a.MessageSynced = channel, ts, false
	s.approvals[id] = a
	return clone(a), nil
}

// Cancel implements workflow.Store.
func (s *Store) Cancel(_ context.Context, id string, c workflow.Cancellation, now time.Time) (workflow.Approval, error) {
	return s.update(id, func(a workflow.Approval) bool { return a.Status == workflow.StatusPending }, func(a *workflow.Approval) {
		a.Cancellation = &c
		a.Close(workflow.StatusCancelled, now)
	})
}

// Claim implements workflow.Store.
func (s *Store) Claim(_ context.Context, id string, d workflow.Decision, now time.Time) (workflow.Approval, error) {
	return s.update(id, func(a workflow.Approval) bool { return a.Status == workflow.StatusPending }, func(a *workflow.Approval) {
		a.Status, a.Decision, a.ClaimedAt = workflow.StatusClaimed, &d, now
		a.Attempts++
	})
}

// Reclaim implements workflow.Store.
func (s *Store) Reclaim(_ context.Context, id string, claimedAt, now time.Time) (workflow.Approval, error) {
	return s.update(id, func(a workflow.Approval) bool {
		return a.Status == workflow.StatusClaimed && a.ClaimedAt.Equal(claimedAt)
	}, func(a *workflow.Approval) {
		a.ClaimedAt = now
		a.Attempts++
	})
}

// Finish implements workflow.Store.
func (s *Store) Finish(_ context.Context, id string, status workflow.Status, now time.Time) (workflow.Approval, error) {
	return s.update(id, func(a workflow.Approval) bool { return a.Status == workflow.StatusClaimed }, func(a *workflow.Approval) {
		a.Close(status, now)
	})
}

// MarkMessageSynced implements workflow.Store.
func (s *Store) MarkMessageSynced(_ context.Context, id string) error {
	_, err := s.update(id, func(workflow.Approval) bool { return true }, func(a *workflow.Approval) { a.MessageSynced = true })
	return err
}

// List implements workflow.Store: like the DynamoDB store, it returns
// each approval as Approval.Listed.
func (s *Store) List(_ context.Context, q workflow.Queue, until time.Time, limit int) ([]workflow.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var out []workflow.Approval
	for _, a := range s.approvals {
		if a.Queue() == q && (until.IsZero() || !a.QueuedAt().After(until)) {
			out = append(out, clone(a))
		}
	}
	slices.SortFunc(out, func(a, b workflow.Approval) int {
		return cmp.Or(a.QueuedAt().Compare(b.QueuedAt()), cmp.Compare(a.ID, b.ID))
	})
	for i := range out {
		out[i] = out[i].Listed()
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// MessageFailed implements workflow.Store.
func (s *Store) MessageFailed(_ context.Context, id string, now time.Time, p workflow.MessageRetry) (workflow.Approval, error) {
	return s.update(id, func(a workflow.Approval) bool { return a.Queue() == workflow.QueueMessage }, func(a *workflow.Approval) {
		a.MessageFailed(now, p)
	})
}

// ListOpen implements workflow.Store.
func (s *Store) ListOpen(_ context.Context, executionARN string, limit int) ([]workflow.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var out []workflow.Approval
	for _, a := range s.approvals {
		if !a.Status.Final() && a.ExecutionARN == executionARN {
			out = append(out, clone(a).Listed())
		}
	}
	sortOldestFirst(out)
	return out[:min(len(out), limit)], nil
}

func sortOldestFirst(list []workflow.Approval) {
	slices.SortFunc(list, func(a, b workflow.Approval) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
}

// clone copies the slices and the decision so callers cannot mutate the
// stored approval.
func clone(a workflow.Approval) workflow.Approval {
	a.Approvers = slices.Clone(a.Approvers)
	a.Fields = slices.Clone(a.Fields)
	a.Drafts = slices.Clone(a.Drafts)
	a.RevisionPresets = slices.Clone(a.RevisionPresets)
	if a.Decision != nil {
		d := *a.Decision
		a.Decision = &d
	}
	if a.Cancellation != nil {
		c := *a.Cancellation
		a.Cancellation = &c
	}
	return a
}
