package dynamo

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// The open approvals' counts move with the writes that open, age and
// close approvals, also when many land at once on two stores.
func TestOpenCountsFollowTheApprovals(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	other := New(client, s.table)
	ctx := t.Context()
	counts := func() []int {
		t.Helper()
		got, err := s.OpenCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if diff := cmp.Diff([]int{0, 0, 0, 0}, counts()); diff != "" {
		t.Errorf("counts of an empty table (-want +got):\n%s", diff)
	}

	var ids []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			store := []*Store{s, other}[i%2]
			a := create(t, store, newApproval(fmt.Sprintf("token-count-%d", i), time.Duration(i)*time.Second))
			mu.Lock()
			ids = append(ids, a.ID)
			mu.Unlock()
		})
	}
	wg.Wait()
	if diff := cmp.Diff([]int{30, 0, 0, 0}, counts()); diff != "" {
		t.Errorf("counts after 30 requests (-want +got):\n%s", diff)
	}

	for i, id := range ids[:20] {
		wg.Go(func() {
			store := []*Store{s, other}[i%2]
			if _, err := store.Claim(ctx, id, approve, t0); err != nil {
				t.Error(err)
				return
			}
			if i%4 == 0 {
				return // claimed: still open
			}
			if _, err := store.Finish(ctx, id, workflow.StatusDecided, t0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	age := func(id string, bucket int) {
		t.Helper()
		if _, err := s.Update(ctx, id, func(a *workflow.Approval) error { a.AgeBucket = bucket; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	age(ids[25], 1)
	age(ids[26], 2)
	age(ids[26], 3)
	if _, err := s.Cancel(ctx, ids[27], workflow.Cancellation{Reason: "test"}, t0); err != nil {
		t.Fatal(err)
	}
	// Open: 5 claimed and 10 pending, of which one a day old and one a
	// week old; one pending cancelled.
	if diff := cmp.Diff([]int{12, 1, 0, 1}, counts()); diff != "" {
		t.Errorf("counts after decisions, ageing and a cancellation (-want +got):\n%s", diff)
	}

	// A record an older version wrote is not counted until written again.
	legacy := newApproval("token-count-legacy", 0)
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: encode(legacy, 1)}); err != nil {
		t.Fatal(err)
	}
	if n, err := New(client, s.table).Migrate(ctx); err != nil || n != 1 {
		t.Fatalf("Migrate = %d, %v; want the older record rewritten", n, err)
	}
	if diff := cmp.Diff([]int{13, 1, 0, 1}, counts()); diff != "" {
		t.Errorf("counts after migrating an older record (-want +got):\n%s", diff)
	}
}

// An execution's check is scheduled once, at the latest time asked for;
// the checks due come back the longest due first, with when the next is
// due; a check is forgotten only while it is still at the time seen.
func TestExecutionChecksSchedule(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	const a, b, c = "arn:aws:states:us-east-1:123456789012:execution:sm:a", "arn:aws:states:us-east-1:123456789012:execution:sm:b", "arn:aws:states:us-east-1:123456789012:execution:sm:c"
	for _, x := range []workflow.ScheduledCheck{{ExecutionARN: a, At: t0.Add(2 * time.Minute)}, {ExecutionARN: b, At: t0}, {ExecutionARN: a, At: t0.Add(time.Minute)}, {ExecutionARN: c, At: t0.Add(time.Hour)}} {
		if err := s.ScheduleCheck(ctx, x.ExecutionARN, x.At); err != nil {
			t.Fatal(err)
		}
	}
	due := func(now time.Time, limit int) ([]workflow.ScheduledCheck, time.Time) {
		t.Helper()
		got, next, err := s.ChecksDue(ctx, now, limit)
		if err != nil {
			t.Fatal(err)
		}
		return got, next
	}
	got, next := due(t0.Add(5*time.Minute), 1)
	if diff := cmp.Diff([]workflow.ScheduledCheck{{ExecutionARN: b, At: t0}}, got); diff != "" || !next.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("ChecksDue(limit 1) = next %v (-want +got):\n%s", next, diff)
	}
	got, next = due(t0.Add(5*time.Minute), 10)
	if diff := cmp.Diff([]workflow.ScheduledCheck{{ExecutionARN: b, At: t0}, {ExecutionARN: a, At: t0.Add(2 * time.Minute)}}, got); diff != "" || !next.Equal(t0.Add(time.Hour)) {
		t.Errorf("ChecksDue(limit 10) = next %v (-want +got):\n%s", next, diff)
	}
	if err := s.ForgetCheck(ctx, a, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetCheck(ctx, b, t0); err != nil {
		t.Fatal(err)
	}
	got, next = due(t0.Add(2*time.Hour), 10)
	if diff := cmp.Diff([]workflow.ScheduledCheck{{ExecutionARN: a, At: t0.Add(2 * time.Minute)}, {ExecutionARN: c, At: t0.Add(time.Hour)}}, got); diff != "" || !next.IsZero() {
		t.Errorf("after forgetting b and a at a time it is not scheduled for: next %v (-want +got):\n%s", next, diff)
	}
}

// List pages through a queue with its cursor, within until.
func TestListPages(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.pageSize = 40
	var items []map[string]types.AttributeValue
	var want []string
	for i := range 250 {
		a := newApproval(fmt.Sprintf("token-page-%d", i), time.Duration(i)*time.Second)
		items = append(items, recordItem(record{a: a, version: 1, counted: -1}))
		if i < 230 {
			want = append(want, a.ID)
		}
	}
	writeAll(t, s.table, items)
	var got []string
	var after workflow.Cursor
	pages := 0
	for {
		// Due an hour after each was created, to move on to the next age.
		list, next, err := s.List(t.Context(), workflow.QueueOpen, after, t0.Add(time.Hour+229*time.Second), 100)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, ids(list)...)
		if next == "" {
			break
		}
		after = next
	}
	if diff := cmp.Diff(want, got); diff != "" || pages != 3 {
		t.Errorf("%d pages (-want +got):\n%s", pages, diff)
	}
}

// Watchers lists the people whose watch lasts past now, once each.
func TestWatchers(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	for _, w := range []struct {
		user  string
		until time.Time
	}{{"U0ANN", t0.Add(time.Hour)}, {"U0BOB", t0.Add(time.Minute)}, {"U0ANN", t0.Add(2 * time.Hour)}, {"U0CAT", t0}} {
		if err := s.Watch(ctx, w.user, w.until); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		now  time.Time
		want []string
	}{
		{t0, []string{"U0BOB", "U0ANN"}},
		{t0.Add(30 * time.Minute), []string{"U0ANN"}},
		{t0.Add(3 * time.Hour), nil},
	} {
		got, err := s.Watchers(ctx, tc.now)
		if diff := cmp.Diff(tc.want, got); err != nil || diff != "" {
			t.Errorf("Watchers at %v (-want +got, %v):\n%s", tc.now, err, diff)
		}
	}
}
