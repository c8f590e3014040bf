package dynamo

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// queues lists the IDs on each queue.
func queues(t *testing.T, s *Store) map[workflow.Queue][]string {
	t.Helper()
	got := map[workflow.Queue][]string{}
	for _, q := range []workflow.Queue{workflow.QueueOpen, workflow.QueueMessage} {
		list, _, err := s.List(t.Context(), q, "", time.Time{}, 100)
		if err != nil {
			t.Fatalf("List(%s): %v", q, err)
		}
		for _, a := range list {
			if a.Queue() != q {
				t.Errorf("List(%s) returned %s, which is on queue %q", q, a.ID, a.Queue())
			}
			got[q] = append(got[q], a.ID)
		}
		slices.Sort(got[q])
	}
	return got
}

// sorted sorts each queue's IDs, as queues does.
func sorted(m map[workflow.Queue][]string) map[workflow.Queue][]string {
	for _, ids := range m {
		slices.Sort(ids)
	}
	return m
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
			map[workflow.Queue][]string{workflow.QueueOpen: {older.ID, a.ID, noMessage.ID}}},
		{"message posted while pending", func() error { _, err := s.SetMessage(ctx, a.ID, "C0123", "1.1"); return err },
			map[workflow.Queue][]string{workflow.QueueOpen: {older.ID, a.ID, noMessage.ID}}},
		{"claimed", func() error {
			if _, err := s.Claim(ctx, noMessage.ID, approve, t0); err != nil {
				return err
			}
			_, err := s.Claim(ctx, a.ID, approve, t0)
			return err
		}, map[workflow.Queue][]string{workflow.QueueOpen: {older.ID, a.ID, noMessage.ID}}},
		{"finished", func() error {
			if _, err := s.Finish(ctx, noMessage.ID, workflow.StatusDecided, t0); err != nil {
				return err
			}
			_, err := s.Finish(ctx, a.ID, workflow.StatusDecided, t0)
			return err
		}, map[workflow.Queue][]string{workflow.QueueOpen: {older.ID}, workflow.QueueMessage: {a.ID}}},
		{"message synced", func() error { return s.MarkMessageSynced(ctx, a.ID) },
			map[workflow.Queue][]string{workflow.QueueOpen: {older.ID}}},
		{"message of a final approval recorded late", func() error { _, err := s.SetMessage(ctx, noMessage.ID, "C0123", "1.2"); return err },
			map[workflow.Queue][]string{workflow.QueueOpen: {older.ID}, workflow.QueueMessage: {noMessage.ID}}},
		{"same message recorded again", func() error {
			if err := s.MarkMessageSynced(ctx, noMessage.ID); err != nil {
				return err
			}
			_, err := s.SetMessage(ctx, noMessage.ID, "C0123", "1.2")
			return err
		}, map[workflow.Queue][]string{workflow.QueueOpen: {older.ID}}},
		{"another message refused", func() error {
			if _, err := s.SetMessage(ctx, a.ID, "C0123", "1.3"); workflow.ErrorCode(err) != workflow.ECONFLICT {
				return fmt.Errorf("SetMessage of another message = %v, want ECONFLICT", err)
			}
			return nil
		}, map[workflow.Queue][]string{workflow.QueueOpen: {older.ID}}},
		{"cancelled", func() error {
			_, err := s.Cancel(ctx, older.ID, workflow.Cancellation{Reason: workflow.ReasonReplaced, ReplacedBy: a.ID}, t0)
			return err
		}, map[workflow.Queue][]string{}},
	}
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if diff := cmp.Diff(sorted(step.want), queues(t, s)); diff != "" {
			t.Errorf("queues after %s (-want +got):\n%s", step.name, diff)
		}
	}
}

// The pending queue is ordered by Due: here each approval's deadline, a
// day after its creation.
func TestListPagesInQueueOrder(t *testing.T) {
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
		a.Deadline = a.CreatedAt.Add(24 * time.Hour)
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
		list, _, err := s.List(t.Context(), workflow.QueueOpen, "", time.Time{}, tt.limit)
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
	_, _, err := New(client, "unused").List(t.Context(), "archive", "", time.Time{}, 10)
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
	if list, _, err := other.List(t.Context(), workflow.QueueOpen, "", time.Time{}, 10); err != nil || len(list) != 1 {
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

// countingClient counts the Query calls that reach DynamoDB.
type countingClient struct {
	ItemAPI
	queries atomic.Int64
}

func (c *countingClient) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.queries.Add(1)
	return c.ItemAPI.Query(ctx, in, opts...)
}

func TestListOpen(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	const exec = "arn:aws:states:us-east-1:123456789012:execution:sm:run-open"
	in := func(arn string, age time.Duration, token string) workflow.Approval {
		a := newApproval(token, age)
		a.ExecutionARN, a.StateName = arn, "Approve"
		return create(t, s, a)
	}
	second := in(exec, 0, "token-open-second")
	first := in(exec, -time.Minute, "token-open-first")
	claimed := in(exec, time.Minute, "token-open-claimed")
	decided := in(exec, -time.Hour, "token-open-decided")
	cancelled := in(exec, -2*time.Hour, "token-open-cancelled")
	in(exec+"-other", 0, "token-open-other")
	if _, err := s.Claim(ctx, claimed.ID, approve, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, decided.ID, approve, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(ctx, decided.ID, workflow.StatusDecided, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cancel(ctx, cancelled.ID, workflow.Cancellation{Reason: "execution aborted"}, t0); err != nil {
		t.Fatal(err)
	}

	counting := &countingClient{ItemAPI: client}
	store := New(counting, s.table)
	store.pageSize = 2
	list, err := store.ListOpen(ctx, exec, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range list {
		got = append(got, a.ID)
		if a.TaskToken != "" || a.StateName != "Approve" {
			t.Errorf("listed %s with token %v and state %q; want Approval.Listed", a.ID, a.TaskToken != "", a.StateName)
		}
	}
	if diff := cmp.Diff([]string{first.ID, second.ID, claimed.ID}, got); diff != "" {
		t.Errorf("ListOpen (-want +got):\n%s", diff)
	}
	counting.queries.Store(0)
	if list, err := store.ListOpen(ctx, exec+"-none", 10); err != nil || len(list) != 0 {
		t.Errorf("ListOpen of an execution without approvals = %v, %v", list, err)
	}
	if n := counting.queries.Load(); n != 1 {
		t.Errorf("an execution without open approvals cost %d queries, want 1", n)
	}
	_, err = store.ListOpen(ctx, "", 10)
	wantCode(t, err, workflow.EINVALID)
}

func TestCancel(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	a := newApproval("token-cancel", 0)
	a.ExecutionARN = "arn:aws:states:us-east-1:123456789012:execution:sm:run-cancel"
	a = create(t, s, a)
	if _, err := s.SetMessage(ctx, a.ID, "C0123", "1700000000.000100"); err != nil {
		t.Fatal(err)
	}
	c := workflow.Cancellation{Reason: workflow.ReasonReplaced, ReplacedBy: "ap_newer", Link: "https://fake.slack.com/archives/C0123/p1700000000000200"}
	got, err := s.Cancel(ctx, a.ID, c, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := New(client, s.table).Get(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []workflow.Approval{got, stored} {
		if g.Status != workflow.StatusCancelled || g.Cancellation == nil || *g.Cancellation != c || g.TaskToken != "" ||
			!g.ClosedAt.Equal(t0.Add(time.Minute)) || g.Queue() != workflow.QueueMessage {
			t.Errorf("cancelled = status %s, cancellation %+v, token kept %v, closed %v, queue %q",
				g.Status, g.Cancellation, g.TaskToken != "", g.ClosedAt, g.Queue())
		}
	}
	if open, err := s.ListOpen(ctx, a.ExecutionARN, 10); err != nil || len(open) != 0 {
		t.Errorf("ListOpen after Cancel = %d, %v; want none", len(open), err)
	}
	_, err = s.Cancel(ctx, a.ID, c, t0)
	wantCode(t, err, workflow.ECONFLICT)
	claimed := create(t, s, newApproval("token-cancel-claimed", 0))
	if _, err := s.Claim(ctx, claimed.ID, approve, t0); err != nil {
		t.Fatal(err)
	}
	_, err = s.Cancel(ctx, claimed.ID, c, t0)
	wantCode(t, err, workflow.ECONFLICT)
}

// The message queue is ordered by when each update is due: a record whose
// update failed waits for its retry time and is not listed before it.
func TestMessageQueueListsOnlyDueRecords(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	final := func(token string, closed time.Time) workflow.Approval {
		a := create(t, s, newApproval(token, 0))
		if _, err := s.SetMessage(ctx, a.ID, "C0123", "1700000000.000100"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Claim(ctx, a.ID, approve, closed); err != nil {
			t.Fatal(err)
		}
		a, err := s.Finish(ctx, a.ID, workflow.StatusDecided, closed)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	failing := final("token-due-failing", t0)
	older := final("token-due-older", t0.Add(time.Second))
	newer := final("token-due-newer", t0.Add(2*time.Second))
	p := workflow.MessageRetry{Base: time.Minute, Max: time.Hour, Attempts: 3}
	got, err := s.MessageFailed(ctx, failing.ID, t0.Add(3*time.Second), p)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := New(client, s.table).Get(ctx, failing.ID)
	if err != nil {
		t.Fatal(err)
	}
	retryAt := t0.Add(3*time.Second + time.Minute)
	for _, a := range []workflow.Approval{got, stored} {
		if a.MessageAttempts != 1 || !a.MessageRetryAt.Equal(retryAt) || a.MessageGaveUp {
			t.Errorf("after a failure: attempts %d, retry at %v, gave up %v", a.MessageAttempts, a.MessageRetryAt, a.MessageGaveUp)
		}
	}
	listed := func(until time.Time) []string {
		list, _, err := s.List(ctx, workflow.QueueMessage, "", until, 100)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, a := range list {
			ids = append(ids, a.ID)
		}
		return ids
	}
	tests := []struct {
		until time.Time
		want  []string
	}{
		{t0.Add(1500 * time.Millisecond), []string{older.ID}},
		{t0.Add(2 * time.Second), []string{older.ID, newer.ID}}, // due exactly now
		{retryAt.Add(-time.Nanosecond), []string{older.ID, newer.ID}},
		{retryAt, []string{older.ID, newer.ID, failing.ID}},
		{time.Time{}, []string{older.ID, newer.ID, failing.ID}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, listed(tt.until)); diff != "" {
			t.Errorf("List(message, until %v) (-want +got):\n%s", tt.until, diff)
		}
	}
	for range 2 {
		if _, err := s.MessageFailed(ctx, failing.ID, retryAt, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := listed(time.Time{}); slices.Contains(got, failing.ID) {
		t.Errorf("a record that gave up is still listed: %v", got)
	}
	_, err = s.MessageFailed(ctx, failing.ID, retryAt, p)
	wantCode(t, err, workflow.ECONFLICT)
}
