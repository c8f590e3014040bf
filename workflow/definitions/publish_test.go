package definitions_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

const topic = "Release 2.4"

// Causes of the InvalidInput failures of every shipped workflow.
const (
	requesterMissing = "The input has no requestedBy: the Slack user ID (U…) of whoever asks for this approval, who may then not approve it."
	approversInInput = "The input names approvers or channel. Who may approve, and where, is set when the state machine is deployed " +
		"(DefinitionSubstitutions), not by whoever starts an execution: remove them from the input."
)

// draftRequest is what the drafting agent receives.
type draftRequest struct {
	Topic          string   `json:"topic"`
	Feedback       string   `json:"feedback,omitempty"`
	PreviousDrafts []string `json:"previousDrafts,omitempty"`
}

// draftReply is what the drafting agent returns.
type draftReply struct {
	Drafts  []string `json:"drafts"`
	Summary string   `json:"summary"`
}

// publishRequest is what the publish function receives.
type publishRequest struct {
	Topic      string `json:"topic"`
	Text       string `json:"text"`
	ApprovalID string `json:"approvalId"`
	ApprovedBy string `json:"approvedBy"`
}

type publishFixture struct {
	*harness
	drafts    *calls[draftRequest]
	published *calls[publishRequest]
}

// newPublishFixture registers the drafting agent (version n of its drafts
// on its nth call) and the publish function.
func newPublishFixture(t *testing.T) *publishFixture {
	f := &publishFixture{harness: newHarness(t), drafts: &calls[draftRequest]{}, published: &calls[publishRequest]{}}
	register(f.harness, draftAgentFunction, func(in draftRequest) (draftReply, error) {
		n := f.drafts.add(in)
		return draftReply{Drafts: drafts(in.Topic, n), Summary: fmt.Sprintf("Two takes on %s, version %d.", in.Topic, n)}, nil
	})
	register(f.harness, publishFunction, func(in publishRequest) (map[string]string, error) {
		n := f.published.add(in)
		return map[string]string{"url": fmt.Sprintf("https://blog.example.com/posts/%d", n)}, nil
	})
	return f
}

func drafts(topic string, version int) []string {
	return []string{fmt.Sprintf("%s: the short take, v%d", topic, version), fmt.Sprintf("%s: the long take, v%d", topic, version)}
}

func publishInput(extra map[string]any) map[string]any {
	in := map[string]any{"topic": topic, "requestedBy": requester}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

// TestPublishWithApproval plays every branch of publish-with-approval, in
// both query languages, with the same inputs and the same expected ends.
func TestPublishWithApproval(t *testing.T) {
	t.Parallel()
	decidedAt := epoch.Format(time.RFC3339)
	tests := []struct {
		name string
		play func(t *testing.T, f *publishFixture, definition string)
	}{
		{"approved", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(nil))
			a := f.nextApproval()
			wantRequest := workflow.Approval{
				ExecutionARN: arn, StateName: "Approve", Channel: channel,
				Approvers: []string{approver}, RequestedBy: requester,
				Title:           "Publish: Release 2.4 (round 1 of 3)",
				Summary:         "Two takes on Release 2.4, version 1.",
				Drafts:          drafts(topic, 1),
				RevisionPresets: []string{"Shorter", "More detail", "For non-engineers"},
				AllowSkip:       true,
				AllowEdit:       true,
				Deadline:        epoch.Add(24 * time.Hour),
			}
			if diff := cmp.Diff(wantRequest, requestOf(a)); diff != "" {
				t.Errorf("approval request (-want +got):\n%s", diff)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1})
			f.succeeded(arn, map[string]any{
				"outcome": "published", "topic": topic, "rounds": 1,
				"approvalId": a.ID, "decidedBy": approver, "decidedAt": decidedAt,
				"draftIndex": 1, "text": drafts(topic, 1)[1],
				"publication": map[string]any{"url": "https://blog.example.com/posts/1"},
			})
			want := []publishRequest{{Topic: topic, Text: drafts(topic, 1)[1], ApprovalID: a.ID, ApprovedBy: approver}}
			if diff := cmp.Diff(want, f.published.all()); diff != "" {
				t.Errorf("publish calls (-want +got):\n%s", diff)
			}
			f.checkSubmissions(arn)
		}},
		{"revised then approved", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(nil))
			first := f.nextApproval()
			f.decide(first, workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Preset: "Shorter", Text: "cut the intro"})
			second := f.nextApproval()
			if second.Title != "Publish: Release 2.4 (round 2 of 3)" || !slices.Equal(second.Drafts, drafts(topic, 2)) {
				t.Errorf("second request: title %q, drafts %q; want round 2 with the revised drafts", second.Title, second.Drafts)
			}
			f.decide(second, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0})
			f.succeeded(arn, map[string]any{
				"outcome": "published", "topic": topic, "rounds": 2,
				"approvalId": second.ID, "decidedBy": approver, "decidedAt": decidedAt,
				"draftIndex": 0, "text": drafts(topic, 2)[0],
				"publication": map[string]any{"url": "https://blog.example.com/posts/1"},
			})
			want := []draftRequest{
				{Topic: topic},
				{Topic: topic, Feedback: "Shorter\ncut the intro", PreviousDrafts: drafts(topic, 1)},
			}
			if diff := cmp.Diff(want, f.drafts.all()); diff != "" {
				t.Errorf("draft-agent calls (-want +got):\n%s", diff)
			}
			f.checkSubmissions(arn)
		}},
		{"too many revisions", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(map[string]any{"maxRounds": 2}))
			f.decide(f.nextApproval(), workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Preset: "Shorter"})
			last := f.nextApproval()
			if last.Title != "Publish: Release 2.4 (round 2 of 2)" {
				t.Errorf("second request title %q, want round 2 of 2", last.Title)
			}
			f.decide(last, workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Text: "still too long"})
			f.failed(arn, "TooManyRevisions", "Still not approved after 2 rounds; the last feedback was: still too long")
			if n := len(f.drafts.all()); n != 2 {
				t.Errorf("draft-agent ran %d times, want 2 (draft, one revision)", n)
			}
			f.noMorePosts()
			f.checkSubmissions(arn)
		}},
		{"skipped", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(nil))
			a := f.nextApproval()
			f.decide(a, workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft})
			f.succeeded(arn, map[string]any{
				"outcome": "skipped", "topic": topic, "rounds": 1,
				"approvalId": a.ID, "decidedBy": approver, "decidedAt": decidedAt,
			})
			if n := len(f.published.all()); n != 0 {
				t.Errorf("publish ran %d times after a skip", n)
			}
		}},
		{"rejected", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(nil))
			f.decide(f.nextApproval(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "Wrong product name in both drafts."})
			f.succeeded(arn, map[string]any{
				"outcome": "rejected", "topic": topic, "rounds": 1,
				"reason": "Wrong product name in both drafts.",
			})
			if n := len(f.published.all()); n != 0 {
				t.Errorf("publish ran %d times after a rejection", n)
			}
			f.checkSubmissions(arn)
		}},
		{"in Japanese", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(map[string]any{"locale": "ja"}))
			a := f.nextApproval()
			if a.Locale != "ja" {
				t.Errorf("request locale %q, want the input's ja", a.Locale)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft})
			f.wait(arn)
		}},
		{"withdrawn by the requester", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(nil))
			f.withdraw(f.nextApproval(), "The release moved to next week.")
			f.succeeded(arn, map[string]any{
				"outcome": "withdrawn", "topic": topic, "rounds": 1,
				"reason": "Withdrawn by " + requester + ": The release moved to next week.",
			})
			if n := len(f.published.all()); n != 0 {
				t.Errorf("publish ran %d times after a withdrawal", n)
			}
			f.checkSubmissions(arn)
		}},
		{"a draft edited and approved", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(nil))
			a := f.nextApproval()
			if !a.AllowEdit {
				t.Error("the request does not allow edits")
			}
			fixed := drafts(topic, 1)[1] + " (one word fixed)"
			f.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Edited: fixed})
			f.succeeded(arn, map[string]any{
				"outcome": "published", "topic": topic, "rounds": 1,
				"approvalId": a.ID, "decidedBy": approver, "decidedAt": decidedAt,
				"draftIndex": 1, "text": fixed,
				"publication": map[string]any{"url": "https://blog.example.com/posts/1"},
			})
			want := []publishRequest{{Topic: topic, Text: fixed, ApprovalID: a.ID, ApprovedBy: approver}}
			if diff := cmp.Diff(want, f.published.all()); diff != "" {
				t.Errorf("publish calls (-want +got):\n%s", diff)
			}
		}},
		{"rejected without a reason", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(nil))
			f.decide(f.nextApproval(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft})
			f.succeeded(arn, map[string]any{
				"outcome": "rejected", "topic": topic, "rounds": 1,
				"reason": "Rejected by U0APPROVER without a reason.",
			})
		}},
		{"timed out, then a late click", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(map[string]any{"approvalTimeoutSeconds": 3600}))
			a := f.nextApproval()
			if want := epoch.Add(time.Hour); !a.Deadline.Equal(want) {
				t.Errorf("deadline %v, want %v (the input's approvalTimeoutSeconds)", a.Deadline, want)
			}
			f.clock.Advance(time.Hour)
			f.failed(arn, "NotApproved", "Nobody decided on publishing Release 2.4 before the deadline (States.Timeout).")
			_, err := f.service.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: approver})
			if workflow.ErrorCode(err) != workflow.EEXPIRED {
				t.Errorf("Decide after the timeout = %v, want EEXPIRED", err)
			}
			f.checkSubmissions(arn)
		}},
		{"expired by the sweeper", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(nil))
			f.nextApproval()
			rep, err := f.sweeperAfterDeadline().Recover(context.Background())
			if err != nil || rep.Expired != 1 {
				t.Fatalf("Recover = %+v, %v; want one approval expired", rep, err)
			}
			f.failed(arn, "NotApproved", "Nobody decided on publishing Release 2.4 before the deadline (ApprovalExpired).")
		}},
		{"approvers from the definition", func(t *testing.T, f *publishFixture, definition string) {
			subs := deployed()
			subs[definitions.Approvers] = approver + "," + escalation
			arn := f.startWith(definition, subs, publishInput(nil))
			a := f.nextApproval()
			if want := []string{approver, escalation}; !slices.Equal(a.Approvers, want) || a.Channel != channel {
				t.Errorf("request to %q in %s, want %q in %s", a.Approvers, a.Channel, want, channel)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft, DecidedBy: boss})
			f.succeeded(arn, map[string]any{
				"outcome": "skipped", "topic": topic, "rounds": 1,
				"approvalId": a.ID, "decidedBy": boss, "decidedAt": decidedAt,
			})
		}},
		{"approvers in the input are refused", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(map[string]any{"approvers": []string{requester}}))
			f.failed(arn, "InvalidInput", approversInInput)
			if n := len(f.drafts.all()); n != 0 {
				t.Errorf("draft-agent ran %d times", n)
			}
			f.noMorePosts()
		}},
		{"channel in the input is refused", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(map[string]any{"channel": "C0ELSEWHERE"}))
			f.failed(arn, "InvalidInput", approversInInput)
			f.noMorePosts()
		}},
		{"requester left out", func(t *testing.T, f *publishFixture, definition string) {
			in := publishInput(nil)
			delete(in, "requestedBy")
			arn := f.start(definition, in)
			f.failed(arn, "InvalidInput", requesterMissing)
			if n := len(f.drafts.all()); n != 0 {
				t.Errorf("draft-agent ran %d times", n)
			}
			f.noMorePosts()
		}},
		{"requester empty", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(map[string]any{"requestedBy": ""}))
			f.failed(arn, "InvalidInput", requesterMissing)
			f.noMorePosts()
		}},
		{"requester not a string", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(map[string]any{"requestedBy": []string{requester}}))
			f.failed(arn, "InvalidInput", requesterMissing)
			f.noMorePosts()
		}},
		{"invalid approval request: requester not a user ID", func(t *testing.T, f *publishFixture, definition string) {
			arn := f.start(definition, publishInput(map[string]any{"requestedBy": "bob"}))
			f.failed(arn, "InvalidApprovalRequest", "The notifier refused the approval request, so nobody was asked: "+
				`invalid approval request: requestedBy "bob" is not a Slack user ID (U… or W…). `+
				"Fix the execution input or the Approve state.")
			f.noMorePosts()
		}},
		{"invalid approval request: deployed with a channel name", func(t *testing.T, f *publishFixture, definition string) {
			subs := deployed()
			subs[definitions.Channel] = "#releases"
			arn := f.startWith(definition, subs, publishInput(nil))
			f.failed(arn, "InvalidApprovalRequest", "The notifier refused the approval request, so nobody was asked: "+
				`invalid approval request: channel "#releases" is not a Slack channel ID (C…, G… or D…) nor a user ID (U…/W…, for a direct message); use the ID, not the name. `+
				"Fix the execution input or the Approve state.")
			f.noMorePosts()
		}},
	}
	for _, definition := range []string{definitions.PublishWithApproval, definitions.PublishWithApprovalJSONata} {
		for _, tt := range tests {
			t.Run(definition+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				tt.play(t, newPublishFixture(t), definition)
			})
		}
	}
}

// requestOf keeps the fields of an approval that come from the request.
func requestOf(a workflow.Approval) workflow.Approval {
	return workflow.Approval{
		ExecutionARN: a.ExecutionARN, StateName: a.StateName, Channel: a.Channel,
		Approvers: a.Approvers, RequestedBy: a.RequestedBy, Title: a.Title, Summary: a.Summary,
		Fields: a.Fields, Drafts: a.Drafts, RevisionPresets: a.RevisionPresets, AllowSkip: a.AllowSkip,
		AllowEdit: a.AllowEdit, Deadline: a.Deadline,
	}
}

// sweeperAfterDeadline is another bot replica's service whose clock reads
// past every deadline plus the expiry grace, while the engine's clock has
// not reached the Task timeout: its Recover closes pending approvals with
// ApprovalExpired through the real resumer.
func (h *harness) sweeperAfterDeadline() *workflow.Service {
	s := *h.service
	s.Now = func() time.Time { return h.clock.Now().Add(400 * 24 * time.Hour) }
	return &s
}
