package slackbot

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

func TestModalsGolden(t *testing.T) {
	a := withDrafts(sampleApproval())
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

func TestReadSubmission(t *testing.T) {
	view := func(callback string, values map[string]map[string]slack.BlockAction) slack.View {
		return slack.View{CallbackID: callback, PrivateMetadata: "ap_1", State: &slack.ViewState{Values: values}}
	}
	text := func(block, value string) map[string]map[string]slack.BlockAction {
		return map[string]map[string]slack.BlockAction{block: {block: {Value: value}}}
	}
	long := strings.Repeat("x", workflow.MaxReasonLen+1)
	tests := []struct {
		name     string
		view     slack.View
		want     workflow.Decision
		wantErrs map[string]string
	}{
		{"reject with reason", view("reject", text("reason", "  not now ")),
			workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1, Text: "not now"}, nil},
		{"reject without reason", view("reject", nil),
			workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1}, nil},
		{"reject too long", view("reject", text("reason", long)),
			workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1, Text: long}, map[string]string{"reason": tooLong}},
		{"revise preset and text", view("revise", map[string]map[string]slack.BlockAction{
			"preset":   {"preset": {SelectedOption: slack.OptionBlockObject{Value: "Shorter"}}},
			"feedback": {"feedback": {Value: "cut"}},
		}), workflow.Decision{Action: workflow.ActionRevise, DraftIndex: -1, Preset: "Shorter", Text: "cut"}, nil},
		{"revise text only", view("revise", text("feedback", "cut")),
			workflow.Decision{Action: workflow.ActionRevise, DraftIndex: -1, Text: "cut"}, nil},
		{"revise nothing", view("revise", text("feedback", "   ")),
			workflow.Decision{Action: workflow.ActionRevise, DraftIndex: -1},
			map[string]string{"feedback": "Choose a change above or describe what should change."}},
		{"revise too long", view("revise", text("feedback", long)),
			workflow.Decision{Action: workflow.ActionRevise, DraftIndex: -1, Text: long}, map[string]string{"feedback": tooLong}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, got, errs := readSubmission(tt.view)
			if id != "ap_1" {
				t.Errorf("id = %q, want ap_1", id)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
