package dynamo

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// atResume is a Resumer that records the DynamoDB calls made before each
// result it sends, as Step Functions receives it.
type atResume struct {
	workflow.Resumer
	calls *Calls
	mu    sync.Mutex
	seen  []map[string]int64
}

func (r *atResume) Succeed(ctx context.Context, a workflow.Approval, output []byte) error {
	r.mark()
	return r.Resumer.Succeed(ctx, a, output)
}

func (r *atResume) Fail(ctx context.Context, a workflow.Approval, errorName, cause string) error {
	r.mark()
	return r.Resumer.Fail(ctx, a, errorName, cause)
}

func (r *atResume) mark() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, r.calls.Counts())
}

// A click decides in two DynamoDB round trips before SendTask* (read the
// approval, claim it) and one after (record the outcome), each a
// conditional PutItem whose record holds the decision's audit events:
// nothing else waits on the decision. The write that records the message
// updated is the one transaction that puts the audit records, the
// decider's history and the rest. Each decision runs on a fresh replica,
// which has seen nothing of the approval (the notifier stored and posted
// it).
func TestDecisionRoundTrips(t *testing.T) {
	t.Parallel()
	r := newReplicas(t, 1)
	ctx := t.Context()
	fresh := func() (*workflow.Service, *atResume) {
		c, calls := countedClient()
		res := &atResume{Resumer: r.resumer, calls: calls}
		svc := workflow.NewService(New(c, r.table), res, nil)
		svc.Now, svc.Audit = r.clock.Now, r.audit
		return svc, res
	}
	// decide returns the approval and the calls made before the result was
	// sent and after it, and records the message updated.
	decide := func(a workflow.Approval, d workflow.Decision) (workflow.Approval, map[string]int64, map[string]int64) {
		t.Helper()
		svc, res := fresh()
		got, err := svc.DecideOn(ctx, a.ID, d, workflow.MessageRef{Channel: a.Channel, TS: a.MessageTS})
		if err != nil {
			t.Fatalf("DecideOn(%s by %s): %v", d.Action, d.DecidedBy, err)
		}
		if len(res.seen) == 0 {
			return got, res.calls.Counts(), nil
		}
		before, after := res.seen[0], res.calls.Since(res.seen[0])
		counts := res.calls.Counts()
		if err := svc.MessageSynced(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int64{"TransactWriteItems": 1}, res.calls.Since(counts)); diff != "" {
			t.Errorf("recording the message updated (-want +got calls):\n%s", diff)
		}
		return got, before, after
	}
	claim := map[string]int64{"GetItem": 1, "PutItem": 1}
	finish := map[string]int64{"PutItem": 1}

	for _, tc := range []struct {
		name string
		d    workflow.Decision
	}{
		{"approve", workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0ALICE"}},
		{"reject", workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, DecidedBy: "U0BOB", Text: "no"}},
	} {
		a := r.request(t, nil)
		got, before, after := decide(a, tc.d)
		if got.Status != workflow.StatusDecided {
			t.Fatalf("%s: status %s, want decided", tc.name, got.Status)
		}
		if diff := cmp.Diff(claim, before); diff != "" {
			t.Errorf("%s: DynamoDB calls before SendTask* (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(finish, after); diff != "" {
			t.Errorf("%s: DynamoDB calls after SendTask* (-want +got):\n%s", tc.name, diff)
		}
		wantEvents(t, r, a.ID, workflow.EventRequested, workflow.EventPosted, workflow.EventDecided, workflow.EventResumed)
		h, err := r.audit.History(ctx, tc.d.DecidedBy, 10)
		if err != nil || !slices.ContainsFunc(h, func(e workflow.HistoryEntry) bool {
			return e.Event.ApprovalID == a.ID && e.Event.Type == workflow.EventDecided
		}) {
			t.Errorf("%s: history of %s = %+v, %v; want the decision", tc.name, tc.d.DecidedBy, h, err)
		}
		if got, err := New(client, r.table).Get(ctx, a.ID); err != nil || len(got.AuditOutbox) != 0 {
			t.Errorf("%s: the record holds %d audit events after its message was recorded updated (%v)", tc.name, len(got.AuditOutbox), err)
		}
	}

	// Quorum 2: the first vote is one read and one write (a transaction
	// with its audit record and history: a vote is not followed by a
	// message update); the vote that reaches the quorum decides as above.
	a := r.request(t, func(req *workflow.Request) { q := int64(2); req.Quorum = &q })
	got, calls, _ := decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0ALICE"})
	if got.Status != workflow.StatusPending {
		t.Fatalf("first vote: status %s, want pending", got.Status)
	}
	if diff := cmp.Diff(map[string]int64{"GetItem": 1, "TransactWriteItems": 1}, calls); diff != "" {
		t.Errorf("first vote: DynamoDB calls (-want +got):\n%s", diff)
	}
	got, before, after := decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0BOB"})
	if got.Status != workflow.StatusDecided {
		t.Fatalf("second vote: status %s, want decided", got.Status)
	}
	if diff := cmp.Diff(claim, before); diff != "" {
		t.Errorf("second vote: DynamoDB calls before SendTask* (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(finish, after); diff != "" {
		t.Errorf("second vote: DynamoDB calls after SendTask* (-want +got):\n%s", diff)
	}
	wantEvents(t, r, a.ID, workflow.EventRequested, workflow.EventPosted, workflow.EventVoted, workflow.EventVoted, workflow.EventDecided, workflow.EventResumed)
	for _, user := range []string{"U0ALICE", "U0BOB"} {
		h, err := r.audit.History(ctx, user, 10)
		if err != nil || !slices.ContainsFunc(h, func(e workflow.HistoryEntry) bool { return e.Event.ApprovalID == a.ID }) {
			t.Errorf("history of %s = %+v, %v; want an act on %s", user, h, err, a.ID)
		}
	}
}

// wantEvents fails the test unless the audit trail holds exactly the
// events of the approval, in order, each vote and decision with the record
// of what the person saw and decided.
func wantEvents(t *testing.T, r *replicas, id string, want ...workflow.EventType) {
	t.Helper()
	var got []workflow.EventType
	err := r.audit.Export(t.Context(), t0.Add(-time.Hour), r.clock.Now().Add(time.Hour), func(e workflow.AuditEvent) error {
		if e.ApprovalID != id {
			return nil
		}
		got = append(got, e.Type)
		if e.Type == workflow.EventVoted || e.Type == workflow.EventDecided {
			if e.Record == nil || e.Record.Title == "" || len(e.Record.Drafts) == 0 {
				t.Errorf("%s event %d of %s has no record of what was decided: %+v", e.Type, e.Seq, id, e.Record)
			} else if e.Action == workflow.ActionApprove && e.Record.Decided == nil {
				t.Errorf("%s event %d of %s does not record the draft approved: %+v", e.Type, e.Seq, id, e.Record)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit trail of %s (-want +got):\n%s", id, diff)
	}
}

var _ workflow.Resumer = (*atResume)(nil)
