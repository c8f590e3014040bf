package dynamo

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

func TestRoundTripKeepsEveryField(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
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
		CreatedAt:       t0,
		Deadline:        t0.Add(24 * time.Hour),
		PurgeAt:         t0.Add(91 * 24 * time.Hour).Truncate(time.Second),
		Status:          workflow.StatusPending,
	}
	d := workflow.Decision{Action: workflow.ActionRevise, DraftIndex: 1, Preset: "Shorter", Text: "less", DecidedBy: "U0123", DecidedAt: t0.Add(time.Minute)}
	claimedAt, closedAt := t0.Add(time.Minute+1), t0.Add(2*time.Minute+2)

	steps := []struct {
		name string
		do   func() (workflow.Approval, error)
		want func(*workflow.Approval)
	}{
		{"create", func() (workflow.Approval, error) { got, _, err := s.Create(ctx, a); return got, err }, func(*workflow.Approval) {}},
		{"set message", func() (workflow.Approval, error) { return s.SetMessage(ctx, a.ID, "C0123", "1700000000.000200") }, func(w *workflow.Approval) {
			w.MessageTS = "1700000000.000200"
		}},
		{"claim", func() (workflow.Approval, error) { return s.Claim(ctx, a.ID, d, claimedAt) }, func(w *workflow.Approval) {
			w.Status, w.Decision, w.ClaimedAt, w.Attempts = workflow.StatusClaimed, &d, claimedAt, 1
		}},
		{"finish", func() (workflow.Approval, error) { return s.Finish(ctx, a.ID, workflow.StatusDecided, closedAt) }, func(w *workflow.Approval) {
			w.Status, w.ClosedAt, w.TaskToken = workflow.StatusDecided, closedAt, ""
		}},
		{"message update failed", func() (workflow.Approval, error) {
			return s.MessageFailed(ctx, a.ID, closedAt, workflow.MessageRetry{Base: time.Minute, Max: time.Hour, Attempts: 5})
		}, func(w *workflow.Approval) {
			w.MessageAttempts, w.MessageRetryAt = 1, closedAt.Add(time.Minute)
		}},
		{"mark synced", func() (workflow.Approval, error) { return workflow.Approval{}, s.MarkMessageSynced(ctx, a.ID) }, func(w *workflow.Approval) {
			w.MessageSynced = true
		}},
	}
	want := a
	for _, step := range steps {
		got, err := step.do()
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		step.want(&want)
		if got.ID != "" {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s returned (-want +got):\n%s", step.name, diff)
			}
		}
		stored, err := s.Get(ctx, a.ID)
		if err != nil {
			t.Fatalf("Get after %s: %v", step.name, err)
		}
		if diff := cmp.Diff(want, stored); diff != "" {
			t.Errorf("Get after %s (-want +got):\n%s", step.name, diff)
		}
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
