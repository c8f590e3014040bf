package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// brief is an event as the tests compare it.
type brief struct {
	Type    workflow.EventType
	Actor   string
	Action  workflow.Action
	Comment string
	Users   []string
	Status  workflow.Status
	Reason  string
}

func briefs(events []workflow.AuditEvent, id string) []brief {
	var out []brief
	for _, e := range events {
		if e.ApprovalID == id {
			out = append(out, brief{e.Type, e.Actor, e.Action, e.Comment, e.Users, e.Status, e.Reason})
		}
	}
	return out
}

func TestEveryEventIsAudited(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	a := f.request(t, quorum(2))
	must(f.svc.Delegate(ctx, a.ID, "U0789GHI", "U0DELEGATE", workflow.MessageRef{}))
	must(f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0123ABC", Text: "good"}))
	must(f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0DELEGATE"}))
	cancelled := f.request(t, nil)
	must(f.svc.Cancel(ctx, cancelled.ID, workflow.Cancellation{Reason: workflow.ReasonExecutionAborted}))

	want := []brief{
		{Type: workflow.EventRequested, Actor: "U0999XYZ", Users: []string{"U0123ABC", "U0456DEF", "U0789GHI"}},
		{Type: workflow.EventPosted},
		{Type: workflow.EventDelegated, Actor: "U0789GHI", Users: []string{"U0DELEGATE"}},
		{Type: workflow.EventVoted, Actor: "U0123ABC", Action: workflow.ActionApprove, Comment: "good"},
		{Type: workflow.EventVoted, Actor: "U0DELEGATE", Action: workflow.ActionApprove},
		{Type: workflow.EventDecided, Actor: "U0DELEGATE", Action: workflow.ActionApprove},
		{Type: workflow.EventResumed, Actor: "U0DELEGATE", Action: workflow.ActionApprove, Status: workflow.StatusDecided},
	}
	events := f.audit.Events()
	if diff := cmp.Diff(want, briefs(events, a.ID)); diff != "" {
		t.Errorf("events of the decided approval (-want +got):\n%s", diff)
	}
	wantCancelled := []brief{
		{Type: workflow.EventRequested, Actor: "U0999XYZ", Users: []string{"U0123ABC", "S0456DEF"}},
		{Type: workflow.EventPosted},
		{Type: workflow.EventClosed, Status: workflow.StatusCancelled, Reason: workflow.ReasonExecutionAborted},
	}
	if diff := cmp.Diff(wantCancelled, briefs(events, cancelled.ID)); diff != "" {
		t.Errorf("events of the cancelled approval (-want +got):\n%s", diff)
	}
	raw, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), token) {
		t.Error("an audit event holds the task token")
	}
	for _, id := range []string{a.ID, cancelled.ID} {
		if got := must(f.svc.Get(ctx, id)); len(got.AuditOutbox) != 0 {
			t.Errorf("approval %s still holds %d events written", id, len(got.AuditOutbox))
		}
	}
}

// An audit log that cannot be written never fails a decision: the events
// stay in the record, the failure is told, and they are written later,
// each once: a final approval's by Recover (backing off after each failed
// try), a pending approval's with its next change.
func TestAuditOutageNeverFailsADecision(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var mu sync.Mutex
	var told []error
	f.svc.OnAuditError = func(_ workflow.Approval, err error) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, err)
	}
	pending := f.request(t, quorum(2))
	decided := f.request(t, nil)
	f.audit.SetErr(errors.New("dynamodb: unreachable"))

	voted, err := f.svc.Decide(ctx, pending.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0123ABC"})
	if err != nil || len(voted.AuditOutbox) != 1 {
		t.Fatalf("vote = %v with %d events waiting; want it counted, its event waiting", err, len(voted.AuditOutbox))
	}
	got, err := f.svc.Decide(ctx, decided.ID, approve("U0123ABC"))
	if err != nil || got.Status != workflow.StatusDecided || len(got.AuditOutbox) != 2 {
		t.Fatalf("decision = %s, %v, %d events waiting; want decided, decided and resumed waiting", got.Status, err, len(got.AuditOutbox))
	}
	must(0, f.svc.MessageSynced(ctx, decided.ID))
	if len(told) != 3 {
		t.Errorf("OnAuditError was told %d times, want 3 (vote, decision, message synced)", len(told))
	}
	if rep, _ := f.svc.Recover(ctx); len(rep.AuditErrors) != 1 || rep.Audited != 0 {
		t.Errorf("Recover during the outage = %d written, errors %v; want the decided approval tried", rep.Audited, rep.AuditErrors)
	}
	if a := must(f.svc.Get(ctx, decided.ID)); a.AuditAttempts != 1 || !a.AuditRetryAt.After(f.clock()) {
		t.Errorf("after a failed write: attempts %d, retry at %v; want 1, later than now", a.AuditAttempts, a.AuditRetryAt)
	}

	f.audit.SetErr(nil)
	if rep, _ := f.svc.Recover(ctx); rep.Audited != 0 || len(rep.AuditErrors) != 0 {
		t.Errorf("Recover before the retry is due = %d written, %v; want nothing tried", rep.Audited, rep.AuditErrors)
	}
	f.advance(workflow.DefaultAuditRetry.Base)
	rep, err := f.svc.Recover(ctx)
	if err != nil || rep.Audited != 2 || len(rep.AuditErrors) != 0 {
		t.Fatalf("Recover = %d written, %v, %v; want the decided approval's 2 waiting events written", rep.Audited, rep.AuditErrors, err)
	}
	if a := must(f.svc.Get(ctx, pending.ID)); len(a.AuditOutbox) != 1 {
		t.Errorf("the pending approval's vote: %d events waiting, want 1 (written with its next change)", len(a.AuditOutbox))
	}
	must(f.svc.Decide(ctx, pending.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0456DEF"}))
	for _, id := range []string{pending.ID, decided.ID} {
		if a := must(f.svc.Get(ctx, id)); len(a.AuditOutbox) != 0 || a.Queue() == workflow.QueueAudit {
			t.Errorf("approval %s: %d events waiting, queue %q", id, len(a.AuditOutbox), a.Queue())
		}
	}
	seen := map[[2]any]bool{}
	for _, e := range f.audit.Events() {
		k := [2]any{e.ApprovalID, e.Seq}
		if seen[k] {
			t.Errorf("event %v written twice", k)
		}
		seen[k] = true
	}
	if want := 2 + 2 + 1 + 2 + 3; len(seen) != want { // requested and posted of each, the first vote, decided and resumed, the second vote, decided and resumed
		t.Errorf("%d events written, want %d", len(seen), want)
	}
}

func TestDecidedByListsVotesDecisionsAndDelegations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	voted := f.request(t, quorum(2))
	decided := f.request(t, nil)
	handed := f.request(t, nil)
	must(f.svc.Decide(ctx, voted.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0123ABC", Text: "ok"}))
	f.advance(time.Minute)
	must(f.svc.Decide(ctx, decided.ID, workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, DecidedBy: "U0123ABC", Text: "no"}))
	f.advance(time.Minute)
	must(f.svc.Delegate(ctx, handed.ID, "U0123ABC", "U0OTHER", workflow.MessageRef{}))

	h, err := f.svc.DecidedBy(ctx, "U0123ABC", 10)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID    string
		Type  workflow.EventType
		Title string
	}
	var got []row
	for _, e := range h {
		got = append(got, row{e.Event.ApprovalID, e.Event.Type, e.Title})
	}
	title := voted.Title
	want := []row{{handed.ID, workflow.EventDelegated, title}, {decided.ID, workflow.EventDecided, title}, {voted.ID, workflow.EventVoted, title}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history, newest first (-want +got):\n%s", diff)
	}
	if two := must(f.svc.DecidedBy(ctx, "U0123ABC", 2)); len(two) != 2 {
		t.Errorf("DecidedBy(2) = %d entries", len(two))
	}
	for _, bad := range []struct {
		user  string
		limit int
	}{{"", 5}, {"S0456DEF", 5}, {"U0123ABC", 0}} {
		if _, err := f.svc.DecidedBy(ctx, bad.user, bad.limit); workflow.ErrorCode(err) != workflow.EINVALID {
			t.Errorf("DecidedBy(%q, %d) = %v, want EINVALID", bad.user, bad.limit, err)
		}
	}
}

func TestExportAuditRefusesABadRange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := f.clock()
	for _, r := range [][2]time.Time{{now, now}, {now, now.Add(-time.Second)}, {{}, now}, {now, {}}} {
		err := f.svc.ExportAudit(context.Background(), r[0], r[1], func(workflow.AuditEvent) error { return nil })
		if workflow.ErrorCode(err) != workflow.EINVALID {
			t.Errorf("ExportAudit(%v, %v) = %v, want EINVALID", r[0], r[1], err)
		}
	}
}
