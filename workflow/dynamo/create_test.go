package dynamo

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

func TestCreateIsIdempotentPerTaskToken(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	first := create(t, s, newApproval("token-idem", 0))

	retry := newApproval("token-idem", 0) // a Lambda retry: new ID, same token
	got, created, err := s.Create(t.Context(), retry)
	if err != nil || created {
		t.Fatalf("second Create = created %v, %v; want the first approval, created false", created, err)
	}
	if diff := cmp.Diff(first, got); diff != "" {
		t.Errorf("second Create returned (-want +got):\n%s", diff)
	}
	wantCode(t, func() error { _, err := s.Get(t.Context(), retry.ID); return err }(), workflow.ENOTFOUND)
}

func TestConcurrentCreatesStoreOneApproval(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const n = 10
	type result struct {
		a       workflow.Approval
		created bool
		err     error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			a, created, err := s.Create(t.Context(), newApproval("token-race", 0))
			results[i] = result{a, created, err}
		})
	}
	wg.Wait()

	created := 0
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("Create %d: %v", i, r.err)
		}
		if r.created {
			created++
		}
		if r.a.ID != results[0].a.ID {
			t.Errorf("Create %d returned approval %s, Create 0 returned %s", i, r.a.ID, results[0].a.ID)
		}
	}
	if created != 1 {
		t.Errorf("%d Creates reported created=true, want 1", created)
	}
	pending, _, err := s.List(t.Context(), workflow.QueueOpen, "", time.Time{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 {
		t.Errorf("%d pending approvals stored, want 1", len(pending))
	}
}

func TestCreateRefuses(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	taken := create(t, s, newApproval("token-taken", 0))
	tests := []struct {
		name   string
		change func(*workflow.Approval)
		want   string
	}{
		{"no ID", func(a *workflow.Approval) { a.ID = "" }, workflow.EINVALID},
		{"no token", func(a *workflow.Approval) { a.TaskToken = "" }, workflow.EINVALID},
		{"not pending", func(a *workflow.Approval) { a.Status = workflow.StatusClaimed }, workflow.EINVALID},
		{"ID taken by another token", func(a *workflow.Approval) { a.ID = taken.ID }, workflow.ECONFLICT},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApproval("token-"+tt.name, 0)
			tt.change(&a)
			_, created, err := s.Create(t.Context(), a)
			wantCode(t, err, tt.want)
			if created {
				t.Error("created = true, want false")
			}
		})
	}
}
