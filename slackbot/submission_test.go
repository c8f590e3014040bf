package slackbot

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/workflow"
)

func TestReadSubmission(t *testing.T) {
	view := func(callback string, values map[string]map[string]slack.BlockAction) slack.View {
		return slack.View{CallbackID: callback, PrivateMetadata: "ap_1", State: &slack.ViewState{Values: values}}
	}
	text := func(block, value string) map[string]map[string]slack.BlockAction {
		return map[string]map[string]slack.BlockAction{block: {block: {Value: value}}}
	}
	with := func(v slack.View, metadata string) slack.View {
		v.PrivateMetadata = metadata
		return v
	}
	withDraftInput := func(v slack.View) slack.View {
		v.Blocks = slack.Blocks{BlockSet: []slack.Block{slack.NewInputBlock("draft", slack.NewTextBlockObject(slack.PlainTextType, "Draft", false, false), nil,
			slack.NewRadioButtonsBlockElement("draft", slack.NewOptionBlockObject("0", slack.NewTextBlockObject(slack.PlainTextType, "Draft 1", false, false), nil)))}}
		return v
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
			workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1, Text: long}, map[string]string{"reason": blocks.T("", blocks.KSubTooLong, 3000)}},
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
			workflow.Decision{Action: workflow.ActionRevise, DraftIndex: -1, Text: long}, map[string]string{"feedback": blocks.T("", blocks.KSubTooLong, 3000)}},
		{"reject without a required reason", with(view("reject", text("reason", "  ")), "ap_1 need"),
			workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1}, map[string]string{"reason": "This request needs a reason to reject it."}},
		{"approve with comment", view("approve", text("comment", " fine ")),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1, Text: "fine"}, nil},
		{"approve without comment", view("approve", nil),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1}, nil},
		{"approve without a required comment", with(view("approve", nil), "ap_1 need"),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1}, map[string]string{"comment": "This request needs a comment to approve it."}},
		{"approve a fixed draft", with(view("approve", text("comment", "ok")), "ap_1 C0123 1700000000.000100 draft=1"),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Text: "ok"}, nil},
		{"approve a picked draft", view("approve", map[string]map[string]slack.BlockAction{
			"draft": {"draft": {SelectedOption: slack.OptionBlockObject{Value: "2"}}},
		}), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 2}, nil},
		{"approve without picking a draft", withDraftInput(view("approve", nil)),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1}, map[string]string{"draft": "Pick the draft you approve."}},
		{"approve comment too long", view("approve", text("comment", long)),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1, Text: long}, map[string]string{"comment": blocks.T("", blocks.KSubTooLong, 3000)}},
		{"hand over to nobody", view("delegate", nil),
			workflow.Decision{DraftIndex: -1}, map[string]string{"delegate": "Pick the person to hand the request to."}},
		{"hand over to oneself", view("delegate", map[string]map[string]slack.BlockAction{"delegate": {"delegate": {SelectedUser: "U0ME"}}}),
			workflow.Decision{DraftIndex: -1}, map[string]string{"delegate": "You cannot hand a request to yourself."}},
		{"edit and approve", with(view("edit", map[string]map[string]slack.BlockAction{
			"edited": {"edited": {Value: "second, fixed "}}, "comment": {"comment": {Value: " typo "}},
		}), "ap_1 draft=1"), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Edited: "second, fixed ", Text: "typo"}, nil},
		{"edit emptied", with(view("edit", text("edited", " \n ")), "ap_1 draft=0"),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, Edited: " \n "}, map[string]string{"edited": "The edited draft is empty."}},
		{"edit too long for Slack", with(view("edit", text("edited", strings.Repeat("😀", 1501))), "ap_1 draft=0"),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, Edited: strings.Repeat("😀", 1501)}, map[string]string{"edited": blocks.T("", blocks.KSubTooLong, 3000)}},
		{"edit in Japanese, emptied", with(view("edit", text("edited", "")), "ap_1 draft=0 loc=ja"),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0}, map[string]string{"edited": "編集後の案が空です。"}},
		{"withdraw with a reason", view("withdraw", text("reason", " wrong week ")),
			workflow.Decision{Action: workflow.ActionWithdraw, DraftIndex: -1, Text: "wrong week"}, nil},
		{"withdraw without one", view("withdraw", nil),
			workflow.Decision{Action: workflow.ActionWithdraw, DraftIndex: -1}, nil},
		{"edit step one without a pick", view("edit_pick", nil),
			workflow.Decision{DraftIndex: -1}, map[string]string{"draft": "Pick the draft you approve."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := readSubmission(tt.view, "U0ME")
			if sub.ref.id != "ap_1" {
				t.Errorf("id = %q, want ap_1", sub.ref.id)
			}
			if diff := cmp.Diff(tt.want, sub.decision); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErrs, sub.errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadDelegateSubmission(t *testing.T) {
	v := slack.View{CallbackID: "delegate", PrivateMetadata: "ap_1 home", State: &slack.ViewState{Values: map[string]map[string]slack.BlockAction{
		"delegate": {"delegate": {SelectedUser: "U0OTHER"}},
	}}}
	sub := readSubmission(v, "U0ME")
	if sub.errs != nil || sub.delegate != "U0OTHER" || !sub.ref.home || sub.ref.id != "ap_1" {
		t.Errorf("submission = %+v, want a hand-over to U0OTHER from the App Home", sub)
	}
}
