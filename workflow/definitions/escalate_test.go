package definitions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// rejectionRequest is what the file-rejection function receives.
type rejectionRequest struct {
	Topic        string `json:"topic"`
	Reason       string `json:"reason"`
	ExecutionARN string `json:"executionArn"`
}

type escalateFixture struct {
	*publishFixture
	filed *calls[rejectionRequest]
}

func newEscalateFixture(t *testing.T) *escalateFixture {
	f := &escalateFixture{publishFixture: newPublishFixture(t), filed: &calls[rejectionRequest]{}}
	register(f.harness, fileRejectionFunction, func(in rejectionRequest) (map[string]string, error) {
		f.filed.add(in)
		return map[string]string{"ticket": "REJ-1"}, nil
	})
	return f
}

func escalateInput(extra map[string]any) map[string]any {
	in := map[string]any{"topic": topic, "requestedBy": requester}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

// The default deadline of approve-or-escalate, and when its steps fall.
const (
	approvalTimeout = 24 * time.Hour
	escalationAt    = approvalTimeout / 2                       // escalateAfter 50%
	lastReminderAt  = approvalTimeout * 9 / 10                  // the default reminders: 50%, 90%
	rejectionAt     = approvalTimeout - workflow.OnDeadlineLead // onDeadline reject
)

// sweep runs a bot replica's sweep at the engine's time and returns what
// it did.
func (f *escalateFixture) sweep(t *testing.T) workflow.RecoverReport {
	t.Helper()
	rep, err := f.service.Recover(context.Background())
	if err != nil || rep.Failed != 0 {
		t.Fatalf("Recover = %+v, %v", rep, err)
	}
	return rep
}

func TestApproveOrEscalate(t *testing.T) {
	t.Parallel()
	decidedAt := epoch.Format(time.RFC3339)
	published := func(a workflow.Approval, by, at string, approvals ...map[string]any) map[string]any {
		return map[string]any{
			"outcome": "published", "topic": topic,
			"approvalId": a.ID, "decidedBy": by, "decidedAt": at,
			"draftIndex": 0, "text": drafts(topic, 1)[0], "approvals": approvals,
			"publication": map[string]any{"url": "https://blog.example.com/posts/1"},
		}
	}
	vote := func(user string, at time.Time, comment string) map[string]any {
		return map[string]any{"userId": user, "at": at.Format(time.RFC3339), "comment": comment}
	}
	rejected := func(reason string) map[string]any {
		return map[string]any{"outcome": "rejected", "topic": topic, "reason": reason, "filed": map[string]any{"ticket": "REJ-1"}}
	}
	tests := []struct {
		name string
		play func(t *testing.T, f *escalateFixture)
	}{
		{"team approves", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			a := f.nextApproval()
			want := workflow.Policy{
				Quorum: 1, RequireComment: []workflow.Action{workflow.ActionReject}, AllowDelegation: true,
				EscalateTo: []string{escalation}, OnDeadline: workflow.ActionReject,
			}
			if a.Title != "Publish: Release 2.4" || !cmp.Equal(a.Approvers, []string{approver}) || !a.Deadline.Equal(epoch.Add(approvalTimeout)) || !cmp.Equal(want, a.Policy) {
				t.Errorf("request: title %q, approvers %q, deadline %v, policy %+v", a.Title, a.Approvers, a.Deadline, a.Policy)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, Text: "Go."})
			f.succeeded(arn, published(a, approver, decidedAt, vote(approver, epoch, "Go.")))
			f.checkSubmissions(arn)
		}},
		{"withdrawn by the requester: neither published nor filed", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			f.withdraw(f.nextApproval(), "")
			f.succeeded(arn, map[string]any{"outcome": "withdrawn", "topic": topic, "reason": "Withdrawn by " + requester + " without a reason."})
			if n := len(f.filed.all()) + len(f.published.all()); n != 0 {
				t.Errorf("%d publications or filings after a withdrawal", n)
			}
		}},
		{"team rejects, with the reason it must give", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			a := f.nextApproval()
			if _, err := f.service.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, DecidedBy: approver}); workflow.ErrorCode(err) != workflow.EINVALID {
				t.Errorf("a rejection without a reason = %v, want EINVALID", err)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "Not before the launch."})
			f.succeeded(arn, rejected("Not before the launch."))
			want := []rejectionRequest{{Topic: topic, Reason: "Not before the launch.", ExecutionARN: arn}}
			if diff := cmp.Diff(want, f.filed.all()); diff != "" {
				t.Errorf("file-rejection calls (-want +got):\n%s", diff)
			}
			f.noMorePosts()
		}},
		{"quorum 2: the team's approval and, once escalated, the group's", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(map[string]any{"quorum": 2}))
			a := f.nextApproval()
			ctx := context.Background()
			got, err := f.service.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: approver})
			if err != nil || got.Status != workflow.StatusPending {
				t.Fatalf("the team's approval = %s, %v; want pending, one of two", got.Status, err)
			}
			if _, err := f.service.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: boss}); workflow.ErrorCode(err) != workflow.EFORBIDDEN {
				t.Errorf("the escalation group deciding before the escalation = %v, want EFORBIDDEN", err)
			}
			f.clock.Advance(escalationAt)
			if rep := f.sweep(t); len(rep.Escalated) != 1 || len(rep.Reminded) != 1 {
				t.Fatalf("sweep at 50%% = %+v; want the escalation and the first reminder", rep)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: boss})
			at := epoch.Add(escalationAt)
			f.succeeded(arn, published(a, boss, at.Format(time.RFC3339), vote(approver, epoch, ""), vote(boss, at, "")))
			f.checkSubmissions(arn)
		}},
		{"nobody decides: rejected at the deadline, before the task times out", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			a := f.nextApproval()
			f.clock.Advance(escalationAt)
			if rep := f.sweep(t); len(rep.Escalated) != 1 || len(rep.Reminded) != 1 {
				t.Fatalf("sweep at 50%% = %+v; want the escalation and a reminder", rep)
			}
			f.clock.Advance(lastReminderAt - escalationAt)
			if rep := f.sweep(t); len(rep.Reminded) != 1 || len(rep.Escalated)+len(rep.Decided) != 0 {
				t.Fatalf("sweep at 90%% = %+v; want the second reminder only", rep)
			}
			f.clock.Advance(rejectionAt - lastReminderAt - time.Second)
			if rep := f.sweep(t); len(rep.Decided) != 0 {
				t.Fatalf("decided a second early: %+v", rep)
			}
			f.clock.Advance(time.Second)
			if rep := f.sweep(t); len(rep.Decided) != 1 || rep.Decided[0].Decision.DecidedBy != workflow.DecidedByDeadline {
				t.Fatalf("sweep two minutes before the deadline = %+v; want the request rejected by the deadline", rep)
			}
			reason := "Nobody decided approval " + a.ID + " before its deadline, so it was rejected, as its onDeadline says."
			f.succeeded(arn, rejected(reason))
			if diff := cmp.Diff([]rejectionRequest{{Topic: topic, Reason: reason, ExecutionARN: arn}}, f.filed.all()); diff != "" {
				t.Errorf("file-rejection calls (-want +got):\n%s", diff)
			}
			if strings.Contains(f.historyText(arn), "TaskTimedOut") {
				t.Error("the task timed out: onDeadline came too late")
			}
			f.checkSubmissions(arn)
		}},
		{"without the bot's sweep the task times out", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			f.nextApproval()
			f.clock.Advance(approvalTimeout)
			f.failed(arn, "NobodyApproved", "Nobody decided on publishing Release 2.4 within 86400 seconds, and the request was not rejected at its deadline: is the approvals bot running?")
			if n := len(f.filed.all()) + len(f.published.all()); n != 0 {
				t.Errorf("%d publish or file-rejection calls, want none", n)
			}
			f.checkSubmissions(arn)
		}},
		{"escalation approvers not Slack IDs", func(t *testing.T, f *escalateFixture) {
			subs := deployed()
			subs[definitions.EscalationApprovers] = "#leads"
			arn := f.startWith(definitions.ApproveOrEscalate, subs, escalateInput(nil))
			f.failed(arn, "InvalidApprovalRequest", "The notifier refused the approval request, so nobody was asked: "+
				`invalid approval request: escalateTo entry "#leads" is neither a user ID (U…/W…) nor a user-group ID (S…). `+
				"Fix the execution input or the approval state.")
			f.noMorePosts()
		}},
		{"a quorum out of range", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(map[string]any{"quorum": 11}))
			f.failed(arn, "InvalidApprovalRequest", "The notifier refused the approval request, so nobody was asked: "+
				"invalid approval request: quorum must be a whole number from 1 to 10. Fix the execution input or the approval state.")
			f.noMorePosts()
		}},
		{"escalation approvers in the input are refused", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(map[string]any{"escalationApprovers": []string{requester}}))
			f.failed(arn, "InvalidInput", "The input names approvers, escalationApprovers or channel. Who may approve, and where, "+
				"is set when the state machine is deployed (DefinitionSubstitutions), not by whoever starts an execution: remove them from the input.")
			f.noMorePosts()
		}},
		{"requester left out", func(t *testing.T, f *escalateFixture) {
			in := escalateInput(nil)
			delete(in, "requestedBy")
			f.failed(f.start(definitions.ApproveOrEscalate, in), "InvalidInput", requesterMissing)
			f.noMorePosts()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.play(t, newEscalateFixture(t))
		})
	}
}
