package dynamo

import (
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// Two replicas share a table; each remembers what it last saw. A replica
// whose memory is stale must still get the answer the stored item gives.
func TestStaleRememberedVersionNeverDecides(t *testing.T) {
	t.Parallel()
	a := newStore(t)
	b := New(a.client, a.table)
	ap := create(t, a, newApproval("token-stale-cache", 0))

	if _, err := a.Get(t.Context(), ap.ID); err != nil { // a remembers: pending
		t.Fatal(err)
	}
	claimed, err := b.Claim(t.Context(), ap.ID, approve, t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}

	// On a's stale memory the approval is pending, so a takeover would be
	// refused; the stored item says claimed, so it must succeed.
	got, err := a.Reclaim(t.Context(), ap.ID, claimed.ClaimedAt, t0.Add(2*time.Second))
	if err != nil {
		t.Fatalf("Reclaim from a stale replica: %v", err)
	}
	if got.Attempts != 2 || got.Decision == nil || got.Decision.DecidedBy != approve.DecidedBy {
		t.Errorf("Reclaim = attempts %d decision %+v, want 2 and the first decision", got.Attempts, got.Decision)
	}

	// b now remembers the older claim; its Finish must still land once.
	if _, err := b.Finish(t.Context(), ap.ID, workflow.StatusDecided, t0.Add(3*time.Second)); err != nil {
		t.Fatalf("Finish from the replica with the older version: %v", err)
	}
	if _, err := a.Finish(t.Context(), ap.ID, workflow.StatusDecided, t0.Add(4*time.Second)); workflow.ErrorCode(err) != workflow.ECONFLICT {
		t.Fatalf("second Finish = %v, want ECONFLICT", err)
	}
}

func TestVersionsStayBounded(t *testing.T) {
	t.Parallel()
	v := newVersions(100)
	for i := range 1000 {
		v.put(record{a: workflow.Approval{ID: workflow.NewApprovalID(), Attempts: i}, version: 1})
	}
	if n := len(v.items); n > 100 {
		t.Errorf("%d entries, want at most 100", n)
	}
}

func TestVersionsForgetApprovalsThatCannotChange(t *testing.T) {
	t.Parallel()
	v := newVersions(10)
	a := workflow.Approval{ID: "ap_1", Status: workflow.StatusDecided, MessageTS: "1.2"}
	v.put(record{a: a, version: 3})
	if _, ok := v.get(a.ID); !ok {
		t.Fatal("a decided approval whose message is not synced yet must be remembered")
	}
	a.MessageSynced = true
	v.put(record{a: a, version: 4})
	if _, ok := v.get(a.ID); ok {
		t.Error("a final, synced approval (and its token) is still held")
	}
}
