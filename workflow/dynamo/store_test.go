package dynamo

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// Every field survives the store, through every change: each step's
// change is applied to the expected approval too, and what the store
// returns and then reads must equal it.
func TestRoundTripKeepsEveryField(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	draft := 1
	deadline := t0.Add(24 * time.Hour)
	a := workflow.Approval{
		ID:              "ap_roundtrip",
		TaskToken:       "token-roundtrip",
		ExecutionARN:    "arn:aws:states:us-east-1:123456789012:execution:sm:run-1",
		StateName:       "Approve",
		Channel:         "C0123",
		ThreadTS:        "1700000000.000100",
		Approvers:       []string{"U0123", "S0456"},
		RequestedBy:     "U0999",
		Title:           "Publish the post for 2026-11-29",
		Summary:         "*mrkdwn* body",
		Fields:          []workflow.Field{{Label: "Theme", Value: "Step Functions"}, {Label: "A", Value: "first is not sorted"}},
		Drafts:          []string{"first draft", "second draft"},
		RevisionPresets: []string{"Shorter", "More detail"},
		AllowSkip:       true,
		AllowEdit:       true,
		NotifyRequester: true,
		Confirm:         []string{"approve", "withdraw"},
		Locale:          "ja",
		CreatedAt:       t0,
		Deadline:        deadline,
		PurgeAt:         t0.Add(91 * 24 * time.Hour).Truncate(time.Second),
		Status:          workflow.StatusPending,
		Policy: workflow.Policy{
			Quorum: 2, AllowSelfApproval: true, RequireComment: []workflow.Action{workflow.ActionApprove, workflow.ActionReject},
			AllowDelegation: false, EscalateTo: []string{"U0BOSS", "S0LEADS"}, OnDeadline: workflow.ActionSkip, Heartbeat: 90 * time.Second,
		},
		Steps: []workflow.Step{
			{Kind: workflow.StepRemind, At: t0.Add(time.Hour), DoneAt: t0.Add(time.Hour + time.Second)},
			{Kind: workflow.StepEscalate, At: t0.Add(2 * time.Hour)},
			{Kind: workflow.StepDeadline, At: deadline.Add(-workflow.OnDeadlineLead)},
		},
		Votes: []workflow.Vote{{UserID: "U0123", DraftIndex: 1, Edited: "second draft, fixed", Comment: "fine by me", At: t0.Add(time.Minute)}},
		Delegations: []workflow.Delegation{
			{From: "U0456", To: "U0789", At: t0.Add(30 * time.Second), Told: t0.Add(31 * time.Second)},
			{From: "U0789", To: "U0ABC", At: t0.Add(40 * time.Second)}, // its note not yet posted
		},
		HeartbeatAt:   t0.Add(90 * time.Second),
		AuditSeq:      2,
		AuditAttempts: 1,
		AuditRetryAt:  t0.Add(time.Minute),
		AuditOutbox: []workflow.AuditEvent{
			{ApprovalID: "ap_roundtrip", Seq: 1, At: t0, Type: workflow.EventRequested, Actor: "U0999", Users: []string{"U0123", "S0456"},
				ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:sm:run-1", StateName: "Approve", Title: "Publish",
				RequestedBy: "U0999", Deadline: &deadline, Quorum: 2, EscalateTo: []string{"U0BOSS"}, OnDeadline: workflow.ActionSkip, Channel: "C0123"},
			{ApprovalID: "ap_roundtrip", Seq: 2, At: t0.Add(time.Minute), Type: workflow.EventVoted, Actor: "U0123", Action: workflow.ActionApprove,
				DraftIndex: &draft, Comment: "fine by me", Edited: true},
		},
	}
	d := workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Edited: "second draft, fixed", Text: "less", DecidedBy: "U0123", DecidedAt: t0.Add(time.Minute)}
	claimedAt, closedAt := t0.Add(time.Minute+1), t0.Add(2*time.Minute+2)

	steps := []struct {
		name   string
		change func(*workflow.Approval) error
	}{
		{"set message", func(a *workflow.Approval) error { return a.SetMessage("C0123", "1700000000.000200", t0) }},
		{"claim", func(a *workflow.Approval) error { return a.Claim(d, claimedAt) }},
		{"finish", func(a *workflow.Approval) error { return a.Finish(workflow.StatusDecided, closedAt) }},
		{"message update failed", func(a *workflow.Approval) error {
			return a.MessageFailed(closedAt, workflow.MessageRetry{Base: time.Minute, Max: time.Hour, Attempts: 5})
		}},
		{"mark synced", func(a *workflow.Approval) error { return a.MarkMessageSynced() }},
		{"requester told", func(a *workflow.Approval) error { a.RequesterToldAt = closedAt.Add(time.Second); return nil }},
	}
	// A record of an older version holds its events not yet written.
	if decoded, _, err := decode(encode(a, 7)); err != nil || !cmp.Equal(a, decoded) {
		t.Errorf("decode(encode(a)) (-want +got):\n%s (%v)", cmp.Diff(a, decoded), err)
	}
	created, _, err := s.Create(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	// The events ride with each write: the record keeps none.
	want := a.Clone()
	want.AuditOutbox = nil
	if diff := cmp.Diff(want, created); diff != "" {
		t.Errorf("Create returned (-want +got):\n%s", diff)
	}
	for _, step := range steps {
		got, err := s.Update(ctx, a.ID, step.change)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		want = want.Clone()
		if err := step.change(&want); err != nil {
			t.Fatal(err)
		}
		if !deferred(record{}, want) {
			want.AuditOutbox = nil // written
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s returned (-want +got):\n%s", step.name, diff)
		}
		s.versions.forget(a.ID)
		stored, err := s.Get(ctx, a.ID)
		if err != nil {
			t.Fatalf("Get after %s: %v", step.name, err)
		}
		if diff := cmp.Diff(want, stored); diff != "" {
			t.Errorf("Get after %s (-want +got):\n%s", step.name, diff)
		}
	}
	if want.TaskToken != "" || want.AuditSeq != 5 {
		t.Errorf("the steps did not close the approval (token kept) or record its events: %+v", want)
	}
	var seqs []int
	err = NewAuditLog(client, s.table, time.Hour).Export(ctx, t0.Add(-time.Hour), t0.Add(time.Hour), func(e workflow.AuditEvent) error {
		seqs = append(seqs, e.Seq)
		return nil
	})
	slices.Sort(seqs)
	if err != nil || !slices.Equal(seqs, []int{1, 2, 3, 4, 5}) {
		t.Errorf("the audit trail holds events %v (%v), want 1 to 5", seqs, err)
	}
}

func TestMissingApprovalIsNotFound(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	a := create(t, s, newApproval("token-notfound", 0))
	ops := []struct {
		name string
		do   func(id string) error
	}{
		{"Get", func(id string) error { _, err := s.Get(ctx, id); return err }},
		{"Claim", func(id string) error { _, err := s.Claim(ctx, id, approve, t0); return err }},
		{"Reclaim", func(id string) error { _, err := s.Reclaim(ctx, id, t0, t0); return err }},
		{"Finish", func(id string) error { _, err := s.Finish(ctx, id, workflow.StatusDecided, t0); return err }},
		{"SetMessage", func(id string) error { _, err := s.SetMessage(ctx, id, "C0123", "1.2"); return err }},
		{"MarkMessageSynced", func(id string) error { return s.MarkMessageSynced(ctx, id) }},
		{"Cancel", func(id string) error {
			_, err := s.Cancel(ctx, id, workflow.Cancellation{Reason: "x"}, t0)
			return err
		}},
	}
	ids := map[string]string{
		"unknown":     "ap_unknown",
		"empty":       "",
		"token guard": guardID(a.TaskToken),
	}
	for _, op := range ops {
		for what, id := range ids {
			t.Run(op.name+"/"+what, func(t *testing.T) {
				err := op.do(id)
				wantCode(t, err, workflow.ENOTFOUND)
				if want := "no approval " + id; err.Error() != want {
					t.Errorf("error = %q, want %q", err, want)
				}
			})
		}
	}
}

func TestErrorsNeverContainTheToken(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	const token = "secret-task-token-AAAAQWxsIHRoZSB3b3JsZCdzIGEgc3RhZ2U"
	a := create(t, s, newApproval(token, 0))
	if _, err := s.Claim(ctx, a.ID, approve, t0); err != nil {
		t.Fatal(err)
	}
	var errs []error
	collect := func(_ any, err error) { errs = append(errs, err) }
	collect(s.Claim(ctx, a.ID, approve, t0))
	collect(s.Reclaim(ctx, a.ID, t0.Add(-time.Hour), t0))
	collect(s.Finish(ctx, a.ID, workflow.StatusPending, t0))
	collect(nil, s.MarkMessageSynced(ctx, a.ID))
	dup := newApproval(token, 0)
	dup.ID = a.ID
	dup.TaskToken = "another-token"
	_, _, err := s.Create(ctx, dup)
	errs = append(errs, err)
	tooBig := newApproval(token, 0)
	tooBig.Summary = strings.Repeat("x", 500<<10) // over DynamoDB's 400 KB item limit
	_, _, err = s.Create(ctx, tooBig)
	errs = append(errs, err)
	collect(New(client, "no-such-table").Get(ctx, a.ID))
	_, _, err = New(client, "no-such-table").Create(ctx, newApproval(token, 0))
	errs = append(errs, err)

	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: error = nil, want one", i)
			continue
		}
		if strings.Contains(err.Error(), token) {
			t.Errorf("case %d: error %q contains the task token", i, err)
		}
	}
}

// A hand-over stored before notes were recorded (no told, no untold)
// counts as told: no sweep posts its note again after an upgrade.
func TestHandOverStoredBeforeNotesCountsAsTold(t *testing.T) {
	t.Parallel()
	at := t0.Add(time.Minute)
	a := workflow.Approval{ID: "ap_old", Status: workflow.StatusPending, CreatedAt: t0,
		Delegations: []workflow.Delegation{{From: "U0456", To: "U0789", At: at}}}
	item := encode(a, 1)
	hand := item["delegations"].(*types.AttributeValueMemberL).Value[0].(*types.AttributeValueMemberM).Value
	if _, ok := hand["untold"]; !ok {
		t.Fatal("a hand-over not told is not stored as untold")
	}
	delete(hand, "untold")
	got, _, err := decode(item)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.Delegations[0]; !d.Told.Equal(at) {
		t.Errorf("told = %s, want the hand-over's own time %s", d.Told, at)
	}
}
