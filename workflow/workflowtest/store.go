// Package workflowtest provides stateful in-memory fakes of the workflow
// interfaces, for tests of packages that sit on top of the domain (the Slack
// bot, the notifier). They keep the same conditional semantics as the real
// adapters; the DynamoDB store itself is tested against DynamoDB Local.
package workflowtest

import (
	"cmp"
	"context"
	"errors"
	"maps"
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
	checks    map[string]time.Time // execution ARN → next check
	watching  map[string]time.Time // user → until
	// Err, when set, is returned by every call (an outage).
	err error
}

var _ workflow.Store = (*Store)(nil)

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{approvals: map[string]workflow.Approval{}, byToken: map[string]string{}, checks: map[string]time.Time{}, watching: map[string]time.Time{}}
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

// Update implements workflow.Store: change runs on a copy under the
// store's lock, so changes are atomic as the DynamoDB store's conditional
// writes make them.
func (s *Store) Update(_ context.Context, id string, change func(*workflow.Approval) error) (workflow.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.get(id)
	if err != nil {
		return workflow.Approval{}, err
	}
	next := a.Clone()
	switch err := change(&next); {
	case errors.Is(err, workflow.ErrUnchanged):
		return a.Clone(), nil
	case err != nil:
		return workflow.Approval{}, err
	}
	s.approvals[id] = next
	return next.Clone(), nil
}

// List implements workflow.Store: like the DynamoDB store, it returns
// each approval as Approval.Listed. The cursor is the QueuedAt and ID of
// the last approval listed.
func (s *Store) List(_ context.Context, q workflow.Queue, after workflow.Cursor, until time.Time, limit int) ([]workflow.Approval, workflow.Cursor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, "", s.err
	}
	key := func(a workflow.Approval) string { return a.QueuedAt().UTC().Format(sortable) + "#" + a.ID }
	var out []workflow.Approval
	for _, a := range s.approvals {
		if a.Queue() == q && (until.IsZero() || !a.QueuedAt().After(until)) && key(a) > string(after) {
			out = append(out, clone(a))
		}
	}
	slices.SortFunc(out, func(a, b workflow.Approval) int { return cmp.Compare(key(a), key(b)) })
	next := workflow.Cursor("")
	if len(out) > limit {
		out = out[:limit]
		next = workflow.Cursor(key(out[limit-1]))
	}
	for i := range out {
		out[i] = out[i].Listed()
	}
	return out, next, nil
}

// sortable formats times so that their strings sort as they do.
const sortable = "2006-01-02T15:04:05.000000000Z07:00"

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

// ListFor implements workflow.Store, from the approvals' Deciders.
func (s *Store) ListFor(_ context.Context, deciders []string, limit int) ([]workflow.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var out []workflow.Approval
	for _, a := range s.approvals {
		if a.Status == workflow.StatusPending && slices.ContainsFunc(a.Deciders(), func(d string) bool { return slices.Contains(deciders, d) }) {
			out = append(out, clone(a))
		}
	}
	sortOldestFirst(out)
	return out[:min(len(out), limit)], nil
}

// ListRequestedBy implements workflow.Store: the pending approvals
// requester asked for, oldest first.
func (s *Store) ListRequestedBy(_ context.Context, requester string, limit int) ([]workflow.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var out []workflow.Approval
	for _, a := range s.approvals {
		if a.Status == workflow.StatusPending && a.RequestedBy == requester {
			out = append(out, clone(a))
		}
	}
	sortOldestFirst(out)
	return out[:min(len(out), limit)], nil
}

// DeciderGroups implements workflow.Store: the user groups among the
// Deciders of pending approvals.
func (s *Store) DeciderGroups(_ context.Context, _ time.Time) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var groups []string
	for _, a := range s.approvals {
		for _, d := range a.Deciders() {
			if a.Status == workflow.StatusPending && workflow.IsGroupID(d) && !slices.Contains(groups, d) {
				groups = append(groups, d)
			}
		}
	}
	slices.Sort(groups)
	return groups, nil
}

// OpenCounts implements workflow.Store, from the open approvals'
// AgeBucket.
func (s *Store) OpenCounts(context.Context) ([]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	counts := make([]int, len(workflow.AgeBounds)+1)
	for _, a := range s.approvals {
		if !a.Status.Final() {
			counts[a.AgeBucket]++
		}
	}
	return counts, nil
}

// ScheduleCheck implements workflow.Store.
func (s *Store) ScheduleCheck(_ context.Context, arn string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if old, ok := s.checks[arn]; !ok || old.Before(at) {
		s.checks[arn] = at
	}
	return nil
}

// ChecksDue implements workflow.Store.
func (s *Store) ChecksDue(_ context.Context, now time.Time, limit int) ([]workflow.ScheduledCheck, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, time.Time{}, s.err
	}
	var all []workflow.ScheduledCheck
	for arn, at := range s.checks {
		all = append(all, workflow.ScheduledCheck{ExecutionARN: arn, At: at})
	}
	slices.SortFunc(all, func(a, b workflow.ScheduledCheck) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ExecutionARN, b.ExecutionARN))
	})
	var due []workflow.ScheduledCheck
	for _, c := range all {
		if c.At.After(now) || len(due) == limit {
			return due, c.At, nil
		}
		due = append(due, c)
	}
	return due, time.Time{}, nil
}

// ForgetCheck implements workflow.Store.
func (s *Store) ForgetCheck(_ context.Context, arn string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if old, ok := s.checks[arn]; ok && old.Equal(at) {
		delete(s.checks, arn)
	}
	return nil
}

// Checks returns the execution checks scheduled, by execution ARN.
func (s *Store) Checks() map[string]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.checks)
}

// Watch implements workflow.Store.
func (s *Store) Watch(_ context.Context, user string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.watching[user] = until
	return nil
}

// Watchers implements workflow.Store.
func (s *Store) Watchers(_ context.Context, now time.Time) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var users []string
	for user, until := range s.watching {
		if until.After(now) {
			users = append(users, user)
		}
	}
	slices.Sort(users)
	return users, nil
}

func sortOldestFirst(list []workflow.Approval) {
	slices.SortFunc(list, func(a, b workflow.Approval) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
}

func clone(a workflow.Approval) workflow.Approval { return a.Clone() }
