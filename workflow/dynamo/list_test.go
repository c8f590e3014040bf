package dynamo

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// queues lists the IDs on each queue.
func queues(t *testing.T, s *Store) map[workflow.Queue][]string {
	t.Helper()
	got := map[workflow.Queue][]string{}
	for _, q := range []workflow.Queue{workflow.QueuePending, workflow.QueueClaimed, workflow.QueueMessage} {
		list, err := s.List(t.Context(), q, 100)
		if err != nil {
			t.Fatalf("List(%s): %v", q, err)
		}
		for _, a := range list {
			if a.Queue() != q {
				t.Errorf("List(%s) returned %s, which is on queue %q", q, a.ID, a.Queue())
			}
			got[q] = append(got[q], a.ID)
		}
	}
	return got
}

func TestQueueTransitions(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	older := create(t, s, newApproval("token-queue-older", -time.Hour))
	a := create(t, s, newApproval("token-queue", 0))
	noMessage := create(t, s, newApproval("token-queue-nomsg", time.Hour))

	steps := []struct {
		name string
		do   func() error
		want map[workflow.Queue][]string
	}{
		{"created", func() error { return nil },
			map[workflow.Queue][]string{workflow.QueuePending: {older.ID, a.ID, noMessage.ID}}},
		{"message posted while pending", func() error { _, err := s.SetMessage(ctx, a.ID, "C0123", "1.1"); return err },
			map[workflow.Queue][]string{workflow.QueuePending: {older.ID, a.ID, noMessage.ID}}},
		{"claimed", func() error {
			if _, err := s.Claim(ctx, noMessage.ID, approve, t0); err != nil {
				return err
			}
			_, err := s.Claim(ctx, a.ID, approve, t0)
			return err
		}, map[workflow.Queue][]string{workflow.QueuePending: {older.ID}, workflow.QueueClaimed: {a.ID, noMessage.ID}}},
		{"finished", func() error {
			if _, err := s.Finish(ctx, noMessage.ID, workflow.StatusDecided, t0); err != nil {
				return err
			}
			_, err := s.Finish(ctx, a.ID, workflow.StatusDecided, t0)
			return err
		}, map[workflow.Queue][]string{workflow.QueuePending: {older.ID}, workflow.QueueMessage: {a.ID}}},
		{"message synced", func() error { return s.MarkMessageSynced(ctx, a.ID) },
			map[workflow.Queue][]string{workflow.QueuePending: {older.ID}}},
		{"message of a final approval recorded late", func() error { _, err := s.SetMessage(ctx, noMessage.ID, "C0123", "1.2"); return err },
			map[workflow.Queue][]string{workflow.QueuePending: {older.ID}, workflow.QueueMessage: {noMessage.ID}}},
		{"same message recorded again", func() error {
			if err := s.MarkMessageSynced(ctx, noMessage.ID); err != nil {
				return err
			}
			_, err := s.SetMessage(ctx, noMessage.ID, "C0123", "1.2")
			return err
		}, map[workflow.Queue][]string{workflow.QueuePending: {older.ID}}},
		{"a new message after sync", func() error { _, err := s.SetMessage(ctx, a.ID, "C0123", "1.3"); return err },
			map[workflow.Queue][]string{workflow.QueuePending: {older.ID}, workflow.QueueMessage: {a.ID}}},
	}
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if diff := cmp.Diff(step.want, queues(t, s)); diff != "" {
			t.Errorf("queues after %s (-want +got):\n%s", step.name, diff)
		}
	}
}

func TestListPagesOldestFirst(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.pageSize = 3
	// Created out of order within one second, whole second included:
	// RFC3339Nano would sort "…:00Z" after "…:00.1Z"; queuedAt must not.
	second := t0.Truncate(time.Second)
	type entry struct {
		id      string
		created time.Time
	}
	var entries []entry
	for i, ms := range []int{0, 700, 400, 100, 800, 500, 250, 900, 650, 30} {
		a := newApproval(fmt.Sprintf("token-page-%d", i), 0)
		a.CreatedAt = second.Add(time.Duration(ms) * time.Millisecond)
		create(t, s, a)
		entries = append(entries, entry{a.ID, a.CreatedAt})
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.created.Compare(b.created) })
	var want []string
	for _, e := range entries {
		want = append(want, e.id)
	}

	tests := []struct {
		limit int
		want  []string
	}{
		{limit: 0, want: nil},
		{limit: 2, want: want[:2]},
		{limit: 3, want: want[:3]},
		{limit: 7, want: want[:7]},
		{limit: 10, want: want},
		{limit: 100, want: want},
	}
	for _, tt := range tests {
		list, err := s.List(t.Context(), workflow.QueuePending, tt.limit)
		if err != nil {
			t.Fatalf("List(limit %d): %v", tt.limit, err)
		}
		var got []string
		for _, a := range list {
			got = append(got, a.ID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("List(limit %d) (-want +got):\n%s", tt.limit, diff)
		}
	}
}

func TestListRefusesAnUnknownQueue(t *testing.T) {
	t.Parallel()
	_, err := New(client, "unused").List(t.Context(), "archive", 10)
	wantCode(t, err, workflow.EINVALID)
}

// A listed approval lacks its token and body; were it remembered as the
// version to change, the next write would store it without them.
func TestListedApprovalsAreNeverRememberedForWrites(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := newApproval("token-listed-then-claimed", 0)
	a.Summary, a.Drafts = "a body", []string{"a draft"}
	create(t, s, a)
	other := New(client, s.table) // remembers nothing yet
	if list, err := other.List(t.Context(), workflow.QueuePending, 10); err != nil || len(list) != 1 {
		t.Fatalf("List = %d approvals, %v", len(list), err)
	}
	claimed, err := other.Claim(t.Context(), a.ID, approve, t0)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := New(client, s.table).Get(t.Context(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []workflow.Approval{claimed, stored} {
		if got.TaskToken != a.TaskToken || got.Summary != a.Summary || len(got.Drafts) != 1 {
			t.Errorf("claimed after a List: token kept %v, summary %q, drafts %v; want the whole approval", got.TaskToken == a.TaskToken, got.Summary, got.Drafts)
		}
	}
}
