package definitions_test

import (
	"context"
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

// Default timeouts of approve-or-escalate.
const (
	teamTimeout       = 4 * time.Hour
	escalationTimeout = 24 * time.Hour
)

func TestApproveOrEscalate(t *testing.T) {
	t.Parallel()
	decidedAt := epoch.Format(time.RFC3339)
	published := func(a workflow.Approval, by, at string) map[string]any {
		return map[string]any{
			"outcome": "published", "topic": topic,
			"approvalId": a.ID, "decidedBy": by, "decidedAt": at,
			"draftIndex": 0, "text": drafts(topic, 1)[0],
			"publication": map[string]any{"url": "https://blog.example.com/posts/1"},
		}
	}
	tests := []struct {
		name string
		play func(t *testing.T, f *escalateFixture)
	}{
		{"team approves", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			a := f.nextApproval()
			if a.Title != "Publish: Release 2.4" || !cmp.Equal(a.Approvers, []string{approver}) || !a.Deadline.Equal(epoch.Add(teamTimeout)) {
				t.Errorf("team request: title %q, approvers %q, deadline %v", a.Title, a.Approvers, a.Deadline)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0})
			f.succeeded(arn, published(a, approver, decidedAt))
			f.checkSubmissions(arn)
		}},
		{"team rejects", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			f.decide(f.nextApproval(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "Not before the launch."})
			f.succeeded(arn, map[string]any{
				"outcome": "rejected", "topic": topic, "reason": "Not before the launch.",
				"filed": map[string]any{"ticket": "REJ-1"},
			})
			want := []rejectionRequest{{Topic: topic, Reason: "Not before the launch.", ExecutionARN: arn}}
			if diff := cmp.Diff(want, f.filed.all()); diff != "" {
				t.Errorf("file-rejection calls (-want +got):\n%s", diff)
			}
			f.noMorePosts()
		}},
		{"team times out, escalation approves", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			team := f.nextApproval()
			f.clock.Advance(teamTimeout)
			escalated := f.nextApproval()
			want := workflow.Approval{
				ExecutionARN: arn, StateName: "EscalatedApproval", Channel: channel,
				Approvers: []string{escalation}, RequestedBy: requester,
				Title:    "Escalated: publish Release 2.4",
				Summary:  "The team did not decide within 14400 seconds. Two takes on Release 2.4, version 1.",
				Drafts:   drafts(topic, 1),
				Deadline: epoch.Add(teamTimeout + escalationTimeout),
			}
			if diff := cmp.Diff(want, requestOf(escalated)); diff != "" {
				t.Errorf("escalated request (-want +got):\n%s", diff)
			}
			ctx := context.Background()
			if _, err := f.service.Decide(ctx, team.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: approver}); workflow.ErrorCode(err) != workflow.EEXPIRED {
				t.Errorf("a late click on the team's request = %v, want EEXPIRED", err)
			}
			if _, err := f.service.Decide(ctx, escalated.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: approver}); workflow.ErrorCode(err) != workflow.EFORBIDDEN {
				t.Errorf("the team member deciding the escalation = %v, want EFORBIDDEN", err)
			}
			f.decide(escalated, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: boss})
			f.succeeded(arn, published(escalated, boss, epoch.Add(teamTimeout).Format(time.RFC3339)))
			f.checkSubmissions(arn)
		}},
		{"team's approval expires, escalation rejects", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			f.nextApproval()
			if rep, err := f.sweeperAfterDeadline().Recover(context.Background()); err != nil || rep.Expired != 1 {
				t.Fatalf("Recover = %+v, %v; want one approval expired", rep, err)
			}
			escalated := f.nextApproval()
			f.decide(escalated, workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "Legal has not signed off.", DecidedBy: boss})
			f.succeeded(arn, map[string]any{
				"outcome": "rejected", "topic": topic, "reason": "Legal has not signed off.",
				"filed": map[string]any{"ticket": "REJ-1"},
			})
			want := []rejectionRequest{{Topic: topic, Reason: "Legal has not signed off.", ExecutionARN: arn}}
			if diff := cmp.Diff(want, f.filed.all()); diff != "" {
				t.Errorf("file-rejection calls (-want +got):\n%s", diff)
			}
			f.checkSubmissions(arn)
		}},
		{"nobody decides", func(t *testing.T, f *escalateFixture) {
			arn := f.start(definitions.ApproveOrEscalate, escalateInput(nil))
			f.nextApproval()
			f.clock.Advance(teamTimeout)
			f.nextApproval()
			f.clock.Advance(escalationTimeout)
			f.failed(arn, "NobodyApproved", "Neither the team (14400 s) nor the escalation group (86400 s) decided on publishing Release 2.4.")
			if n := len(f.filed.all()) + len(f.published.all()); n != 0 {
				t.Errorf("%d publish or file-rejection calls, want none", n)
			}
			f.checkSubmissions(arn)
		}},
		{"escalation approvers not Slack IDs", func(t *testing.T, f *escalateFixture) {
			subs := deployed()
			subs[definitions.EscalationApprovers] = "#leads"
			arn := f.startWith(definitions.ApproveOrEscalate, subs, escalateInput(map[string]any{"approvalTimeoutSeconds": 60}))
			f.nextApproval()
			f.clock.Advance(time.Minute)
			f.failed(arn, "InvalidApprovalRequest", "The notifier refused the approval request, so nobody was asked: "+
				`invalid approval request: approver "#leads" is neither a user ID (U…/W…) nor a user-group ID (S…). `+
				"Fix the execution input or the approval state.")
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
