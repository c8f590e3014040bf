package dynamo

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

func TestOnlyOneOfManyClaimsWins(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := create(t, s, newApproval("token-claim-race", 0))
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			d := approve
			d.DecidedBy = "U" + string(rune('A'+i)) + "00"
			_, errs[i] = s.Claim(t.Context(), a.ID, d, t0.Add(time.Duration(i)))
		})
	}
	wg.Wait()

	winners := 0
	for i, err := range errs {
		switch workflow.ErrorCode(err) {
		case "":
			if err != nil {
				t.Fatalf("Claim %d: %v", i, err)
			}
			winners++
		case workflow.ECONFLICT:
		default:
			t.Errorf("Claim %d: %v, want nil or ECONFLICT", i, err)
		}
	}
	if winners != 1 {
		t.Errorf("%d claims won, want exactly 1", winners)
	}
	got, err := s.Get(t.Context(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.StatusClaimed || got.Attempts != 1 {
		t.Errorf("after the race: status %s, attempts %d; want claimed, 1", got.Status, got.Attempts)
	}
}

func TestReclaim(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	pending := create(t, s, newApproval("token-reclaim-pending", 0))
	claimed := create(t, s, newApproval("token-reclaim", 0))
	claimedAt := t0.Add(time.Minute)
	if _, err := s.Claim(ctx, claimed.ID, approve, claimedAt); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Hour)

	tests := []struct {
		name      string
		id        string
		claimedAt time.Time
		wantCode  string
	}{
		{"pending", pending.ID, claimedAt, workflow.ECONFLICT},
		{"wrong claim time", claimed.ID, claimedAt.Add(time.Nanosecond), workflow.ECONFLICT},
		{"right claim time", claimed.ID, claimedAt, ""},
		{"the same claim again", claimed.ID, claimedAt, workflow.ECONFLICT},
	}
	for _, tt := range tests { // in order: each step builds on the last
		got, err := s.Reclaim(ctx, tt.id, tt.claimedAt, now)
		if tt.wantCode != "" {
			wantCode(t, err, tt.wantCode)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !got.ClaimedAt.Equal(now) || got.Attempts != 2 || got.Decision == nil || got.Decision.DecidedBy != approve.DecidedBy {
			t.Errorf("%s: claimedAt %v, attempts %d, decision %+v; want %v, 2, the first decision", tt.name, got.ClaimedAt, got.Attempts, got.Decision, now)
		}
	}
}

func TestFinish(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	pending := create(t, s, newApproval("token-finish-pending", 0))
	claimed := create(t, s, newApproval("token-finish", 0))
	if _, err := s.Claim(ctx, claimed.ID, approve, t0); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		id       string
		status   workflow.Status
		wantCode string
	}{
		{"pending approval", pending.ID, workflow.StatusDecided, workflow.ECONFLICT},
		{"to a status that is not final", claimed.ID, workflow.StatusPending, workflow.EINVALID},
		{"claimed approval", claimed.ID, workflow.StatusExpired, ""},
		{"twice", claimed.ID, workflow.StatusDecided, workflow.ECONFLICT},
	}
	for _, tt := range tests { // in order: each step builds on the last
		got, err := s.Finish(ctx, tt.id, tt.status, t0.Add(time.Minute))
		if tt.wantCode != "" {
			wantCode(t, err, tt.wantCode)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got.Status != tt.status || !got.ClosedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("%s: status %s, closed at %v", tt.name, got.Status, got.ClosedAt)
		}
	}
}

func TestConflictCarriesTheApproval(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := create(t, s, newApproval("token-conflict", 0))
	if _, err := s.Claim(t.Context(), a.ID, approve, t0); err != nil {
		t.Fatal(err)
	}
	_, err := s.Claim(t.Context(), a.ID, approve, t0)
	var e *workflow.Error
	if !errors.As(err, &e) || e.Approval == nil || e.Approval.Status != workflow.StatusClaimed {
		t.Fatalf("second Claim error = %#v, want ECONFLICT carrying the claimed approval", err)
	}
}

func TestMarkMessageSyncedNeedsAFinalApproval(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := create(t, s, newApproval("token-sync", 0))
	wantCode(t, s.MarkMessageSynced(t.Context(), a.ID), workflow.ECONFLICT)
}
