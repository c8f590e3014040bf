package blocks

import (
	"testing"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

func TestModalsGolden(t *testing.T) {
	a := workflowtest.WithDrafts(workflowtest.SampleApproval())
	golden(t, "modal_reject", RejectModal(a))
	golden(t, "modal_revise", ReviseModal(a))
	golden(t, "modal_revise_broadcasts", ReviseModal(withBroadcasts(a)))
	for _, v := range []slack.ModalViewRequest{RejectModal(a), ReviseModal(a)} {
		for _, text := range []*slack.TextBlockObject{v.Title, v.Submit, v.Close} {
			if n := len([]rune(text.Text)); n > 24 {
				t.Errorf("%q is %d characters; Slack allows 24", text.Text, n)
			}
		}
		if v.PrivateMetadata != a.ID {
			t.Errorf("private_metadata = %q, want the approval ID", v.PrivateMetadata)
		}
	}
}

func TestPolicyModalsGolden(t *testing.T) {
	a := workflowtest.WithDrafts(workflowtest.SampleApproval())
	a.Policy = workflow.Policy{Quorum: 2, RequireComment: []workflow.Action{workflow.ActionApprove, workflow.ActionReject}, AllowDelegation: true}
	a.Votes = []workflow.Vote{{UserID: "U0AAA", DraftIndex: 1, At: decided}}
	golden(t, "modal_approve_pick", ApproveModal(a, workflow.NoDraft))
	golden(t, "modal_approve_draft", ApproveModal(a, 1))
	golden(t, "modal_approve_plain", ApproveModal(workflowtest.SampleApproval(), workflow.NoDraft))
	golden(t, "modal_reject_required", RejectModal(a))
	golden(t, "modal_delegate", DelegateModal(a))
	for _, v := range []slack.ModalViewRequest{ApproveModal(a, workflow.NoDraft), RejectModal(a), DelegateModal(a)} {
		for _, text := range []*slack.TextBlockObject{v.Title, v.Submit, v.Close} {
			if n := len([]rune(text.Text)); n > 24 {
				t.Errorf("%q is %d characters; Slack allows 24", text.Text, n)
			}
		}
	}
}
