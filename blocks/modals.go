package blocks

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// Block and action IDs of the modal inputs.
const (
	InputReason   = "reason"
	InputPreset   = "preset"
	InputFeedback = "feedback"
	InputDraft    = "draft"
	InputComment  = "comment"
	InputDelegate = "delegate"
)

// RejectModal asks for a reason before rejecting a: optional, unless
// a's requireComment holds reject. The modal's private_metadata is the
// approval ID (the handler replaces it with a modalRef).
func RejectModal(a workflow.Approval) slack.ModalViewRequest {
	required := slices.Contains(a.Policy.RequireComment, workflow.ActionReject)
	reason := slack.NewPlainTextInputBlockElement(plain("Why is this rejected?"), InputReason).
		WithMultiline(true).WithMaxLength(workflow.MaxReasonLen)
	hint := "Optional. The workflow receives it as the failure cause; without one it is told who rejected."
	if required {
		hint = "Required by this request. The workflow receives it as the failure cause."
	}
	input := slack.NewInputBlock(InputReason, plain("Reason"), plain(hint), reason)
	input.Optional = !required
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      CallbackReject,
		PrivateMetadata: a.ID,
		Title:           plain("Reject request"),
		Submit:          plain("Reject"),
		Close:           plain("Cancel"),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(mrkdwn("Reject *"+Escape(a.Title)+"*?"), nil, nil),
			input,
		}},
	}
}

// ReviseModal asks what should change in a: one of its revision presets,
// free-text feedback, or both. The modal's private_metadata is the approval
// ID.
func ReviseModal(a workflow.Approval) slack.ModalViewRequest {
	options := make([]*slack.OptionBlockObject, 0, len(a.RevisionPresets))
	for _, p := range a.RevisionPresets {
		options = append(options, slack.NewOptionBlockObject(p, plainAuthor(p, maxOptionLen), nil))
	}
	preset := slack.NewInputBlock(InputPreset, plain("Change"), nil, slack.NewRadioButtonsBlockElement(InputPreset, options...))
	preset.Optional = true
	feedback := slack.NewInputBlock(InputFeedback, plain("What should change?"),
		plain("Choose a change above, describe it here, or both."),
		slack.NewPlainTextInputBlockElement(plain("Details for the next draft"), InputFeedback).
			WithMultiline(true).WithMaxLength(workflow.MaxReasonLen))
	feedback.Optional = true
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      CallbackRevise,
		PrivateMetadata: a.ID,
		Title:           plain("Request changes"),
		Submit:          plain("Send"),
		Close:           plain("Cancel"),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(mrkdwn("Request changes to *"+Escape(a.Title)+"*"), nil, nil),
			preset,
			feedback,
		}},
	}
}

// ApproveModal asks for the comment of an approval of a, and for the draft
// when a has drafts and draft is workflow.NoDraft (a fixed draft is the one
// whose button opened it). The comment is optional unless a's
// requireComment holds approve. With a quorum it says how approvals add
// up. The modal's private_metadata is the approval ID (the handler
// replaces it with a modalRef).
func ApproveModal(a workflow.Approval, draft int) slack.ModalViewRequest {
	required := slices.Contains(a.Policy.RequireComment, workflow.ActionApprove)
	what := "Approve *" + Escape(a.Title) + "*?"
	if draft >= 0 {
		what = fmt.Sprintf("Approve draft %d of *%s*?", draft+1, Escape(a.Title))
	}
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(what), nil, nil)}
	if len(a.Drafts) > 0 && draft < 0 {
		options := make([]*slack.OptionBlockObject, 0, len(a.Drafts))
		for i, d := range a.Drafts {
			label := fmt.Sprintf("Draft %d: %s", i+1, oneLine(d))
			options = append(options, slack.NewOptionBlockObject(strconv.Itoa(i), plainAuthor(label, maxOptionLen), nil))
		}
		blocks = append(blocks, slack.NewInputBlock(InputDraft, plain("Draft"), nil, slack.NewRadioButtonsBlockElement(InputDraft, options...)))
	}
	if q := a.Quorum(); q > 1 {
		note := fmt.Sprintf("This request needs %d approvals", q)
		if len(a.Drafts) > 1 {
			note += " of the same draft; approvals of different drafts do not add up"
		}
		if p := Progress(a); p != "" {
			note += " (" + p + " so far)"
		}
		blocks = append(blocks, slack.NewContextBlock("quorum", mrkdwn(note+".")))
	}
	hint := "Optional. The workflow receives it with your approval."
	if required {
		hint = "Required by this request. The workflow receives it with your approval."
	}
	comment := slack.NewInputBlock(InputComment, plain("Comment"), plain(hint),
		slack.NewPlainTextInputBlockElement(plain("Why do you approve?"), InputComment).
			WithMultiline(true).WithMaxLength(workflow.MaxReasonLen))
	comment.Optional = !required
	blocks = append(blocks, comment)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      CallbackApprove,
		PrivateMetadata: a.ID,
		Title:           plain("Approve request"),
		Submit:          plain("Approve"),
		Close:           plain("Cancel"),
		Blocks:          slack.Blocks{BlockSet: blocks},
	}
}

// DelegateModal asks whom to hand a to: one person, picked from the
// workspace's people. The modal's private_metadata is the approval ID
// (the handler replaces it with a modalRef).
func DelegateModal(a workflow.Approval) slack.ModalViewRequest {
	picker := slack.NewOptionsSelectBlockElement(slack.OptTypeUser, plain("Pick a person"), InputDelegate)
	input := slack.NewInputBlock(InputDelegate, plain("Hand it to"),
		plain("They may decide it from then on, and you no longer may, until it is handed back to you."), picker)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      CallbackDelegate,
		PrivateMetadata: a.ID,
		Title:           plain("Hand over request"),
		Submit:          plain("Hand over"),
		Close:           plain("Cancel"),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(mrkdwn("Hand *"+Escape(a.Title)+"* to somebody else to decide."), nil, nil),
			input,
		}},
	}
}
