package workflow_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

func quorum(n int64) func(*workflow.Request) {
	return func(r *workflow.Request) {
		r.Quorum = &n
		r.Approvers = []string{"U0123ABC", "U0456DEF", "U0789GHI"}
	}
}

// output decodes what the task received on success.
func output(t *testing.T, f *fixture, a workflow.Approval) map[string]any {
	t.Helper()
	task, ok := f.resumer.Task(a.TaskToken.Reveal())
	if !ok || task.Output == "" {
		t.Fatalf("the task of %s received no output: %+v", a.ID, task)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(task.Output), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestQuorumCountsEachPersonOnceAndResumesAtTheQuorum(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, quorum(2))
	ctx := context.Background()

	first := workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0123ABC", Text: "looks right"}
	got, err := f.svc.Decide(ctx, a.ID, first)
	if err != nil || got.Status != workflow.StatusPending || len(got.ApprovalsOf(1)) != 1 {
		t.Fatalf("first approval = %s with %d votes, %v; want pending with 1 vote", got.Status, len(got.ApprovalsOf(1)), err)
	}
	if task, _ := f.resumer.Task(a.TaskToken.Reveal()); !task.Open {
		t.Fatal("one approval of two resumed the execution")
	}
	f.advance(time.Minute)
	again, err := f.svc.Decide(ctx, a.ID, first)
	if err != nil || again.Status != workflow.StatusPending || len(again.Votes) != 1 {
		t.Fatalf("the same approval again = %s with %d votes, %v; want nothing changed", again.Status, len(again.Votes), err)
	}
	other := workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0123ABC"}
	if _, err := f.svc.Decide(ctx, a.ID, other); workflow.ErrorCode(err) != workflow.EINVALID {
		t.Fatalf("the same person approving another draft: %v, want EINVALID", err)
	}
	second := workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0456DEF"}
	final, err := f.svc.Decide(ctx, a.ID, second)
	if err != nil || final.Status != workflow.StatusDecided {
		t.Fatalf("second approval = %s, %v; want decided", final.Status, err)
	}
	want := []any{
		map[string]any{"userId": "U0123ABC", "at": "2026-11-29T10:00:00Z", "comment": "looks right"},
		map[string]any{"userId": "U0456DEF", "at": "2026-11-29T10:01:00Z", "comment": ""},
	}
	out := output(t, f, a)
	if diff := cmp.Diff(want, out["approvals"]); diff != "" {
		t.Errorf("approvals (-want +got):\n%s", diff)
	}
	if out["decidedBy"] != "U0456DEF" || out["draftIndex"] != 1.0 || out["comment"] != nil {
		t.Errorf("output %v: want decided by the second approver, draft 1, no comment of theirs", out)
	}
}

func TestApprovalsOfDifferentDraftsDoNotAddUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, quorum(2))
	ctx := context.Background()
	if _, err := f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: "U0123ABC"}); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0456DEF"})
	if err != nil || got.Status != workflow.StatusPending || len(got.ApprovalsOf(0)) != 1 || len(got.ApprovalsOf(1)) != 1 {
		t.Fatalf("two approvals of two drafts = %s %+v, %v; want pending, one each", got.Status, got.Votes, err)
	}
	final, err := f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0789GHI"})
	if err != nil || final.Status != workflow.StatusDecided || final.Decision.DraftIndex != 1 {
		t.Fatalf("a second approval of draft 2 = %s, %v; want draft 2 decided", final.Status, err)
	}
	if got := output(t, f, a)["approvals"].([]any); len(got) != 2 {
		t.Errorf("approvals = %v, want the two of draft 2 only", got)
	}
}

func TestRejectionAfterOneApprovalRejects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, quorum(2))
	ctx := context.Background()
	if _, err := f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0123ABC"}); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, DecidedBy: "U0456DEF", Text: "not yet"})
	if err != nil || got.Status != workflow.StatusDecided || got.Decision.Action != workflow.ActionReject {
		t.Fatalf("rejection = %s, %v; want rejected", got.Status, err)
	}
	task, _ := f.resumer.Task(a.TaskToken.Reveal())
	if task.Error != workflow.ErrorRejected || task.Cause != "not yet" || task.Results != 1 {
		t.Errorf("task = %+v, want one Rejected with the reason", task)
	}
	if _, err := f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0789GHI"}); workflow.ErrorCode(err) != workflow.ECONFLICT {
		t.Errorf("an approval after the rejection: %v, want ECONFLICT", err)
	}
}

// Many people approving at once, quorum 3 of 5: exactly one resume, made
// of three approvals of one draft.
func TestConcurrentApprovalsReachTheQuorumOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	people := []string{"U0A1", "U0A2", "U0A3", "U0A4", "U0A5"}
	a := f.request(t, func(r *workflow.Request) {
		q := int64(3)
		r.Quorum, r.Approvers = &q, people
	})
	var wg sync.WaitGroup
	for _, p := range people {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.svc.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: p})
			if err != nil && workflow.ErrorCode(err) != workflow.ECONFLICT {
				t.Errorf("%s: %v", p, err)
			}
		}()
	}
	wg.Wait()
	task, _ := f.resumer.Task(a.TaskToken.Reveal())
	if task.Results != 1 {
		t.Fatalf("task closed %d times, want once", task.Results)
	}
	if got := output(t, f, a)["approvals"].([]any); len(got) != 3 {
		t.Errorf("approvals = %v, want exactly the quorum", got)
	}
}

func TestRequireComment(t *testing.T) {
	t.Parallel()
	requireBoth := func(r *workflow.Request) { r.RequireComment = []string{"approve", "reject"} }
	tests := []struct {
		name     string
		d        workflow.Decision
		wantCode string
	}{
		{"approve without comment", workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Text: "  "}, workflow.EINVALID},
		{"reject without reason", workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft}, workflow.EINVALID},
		{"approve with comment", workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Text: "ship it"}, ""},
		{"skip needs nothing", workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, requireBoth)
			tt.d.DecidedBy = "U0123ABC"
			got, err := f.svc.Decide(context.Background(), a.ID, tt.d)
			if workflow.ErrorCode(err) != tt.wantCode {
				t.Fatalf("err = %v, want code %q", err, tt.wantCode)
			}
			if tt.wantCode != "" {
				if got.Status != workflow.StatusPending || len(f.audit.Events()) != 2 {
					t.Errorf("a refused decision changed something: %s, %d events", got.Status, len(f.audit.Events()))
				}
				return
			}
			if tt.d.Action == workflow.ActionApprove {
				if c := output(t, f, a)["comment"]; c != "ship it" {
					t.Errorf("output comment = %v, want the approver's", c)
				}
			}
		})
	}
}

// The votes' comments are bounded together, with a clear refusal, so a
// record never outgrows what the store can hold.
func TestVoteCommentsAreBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	people := make([]string, 0, 30)
	for i := range 30 {
		people = append(people, "U0V"+strconv.Itoa(i))
	}
	a := f.request(t, func(r *workflow.Request) {
		q := int64(10)
		r.Quorum, r.Approvers, r.Drafts = &q, people, []string{"1", "2", "3", "4", "5"}
	})
	long := strings.Repeat("€", workflow.MaxReasonLen) // 9000 bytes
	var refused error
	for i, p := range people {
		_, err := f.svc.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: i % 5, DecidedBy: p, Text: long})
		if err != nil {
			refused = err
			break
		}
	}
	if workflow.ErrorCode(refused) != workflow.EINVALID {
		t.Fatalf("err = %v, want EINVALID once the comments are full", refused)
	}
	got := must(f.svc.Get(context.Background(), a.ID))
	if len(got.Votes) != workflow.MaxVoteCommentBytes/len(long) {
		t.Errorf("%d votes kept, want %d", len(got.Votes), workflow.MaxVoteCommentBytes/len(long))
	}
	if _, err := f.svc.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: people[len(people)-1]}); err != nil {
		t.Errorf("an approval without a comment after that: %v", err)
	}
}
