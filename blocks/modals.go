package blocks

import (
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
	InputEdited   = "edited"
)

// maxModalTitle is Slack's limit on a modal's title, submit and close
// texts.
const maxModalTitle = 24

// modal is a modal view in locale with its callback ID, title and submit
// text; its private_metadata is the approval ID (the handler replaces it
// with a modalRef).
func modal(locale, callbackID, id string, title, submit Key, blocks ...slack.Block) slack.ModalViewRequest {
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      callbackID,
		PrivateMetadata: id,
		Title:           plainAuthor(T(locale, title), maxModalTitle),
		Submit:          plainAuthor(T(locale, submit), maxModalTitle),
		Close:           plainAuthor(T(locale, KModalCancel), maxModalTitle),
		Blocks:          slack.Blocks{BlockSet: blocks},
	}
}

// RejectModal asks for a reason before rejecting a: optional, unless
// a's requireComment holds reject.
func RejectModal(a workflow.Approval) slack.ModalViewRequest {
	l := a.Locale
	required := slices.Contains(a.Policy.RequireComment, workflow.ActionReject)
	reason := slack.NewPlainTextInputBlockElement(plain(T(l, KRejectPlaceholder)), InputReason).
		WithMultiline(true).WithMaxLength(workflow.MaxReasonLen)
	hint := T(l, KRejectHintOptional)
	if required {
		hint = T(l, KRejectHintRequired)
	}
	input := slack.NewInputBlock(InputReason, plain(T(l, KRejectLabel)), plain(hint), reason)
	input.Optional = !required
	return modal(l, CallbackReject, a.ID, KRejectTitle, KRejectSubmit,
		slack.NewSectionBlock(mrkdwn(T(l, KRejectQuestion, Escape(a.Title))), nil, nil),
		input)
}

// ReviseModal asks what should change in a: one of its revision presets,
// free-text feedback, or both.
func ReviseModal(a workflow.Approval) slack.ModalViewRequest {
	l := a.Locale
	options := make([]*slack.OptionBlockObject, 0, len(a.RevisionPresets))
	for _, p := range a.RevisionPresets {
		options = append(options, slack.NewOptionBlockObject(p, plainAuthor(p, maxOptionLen), nil))
	}
	preset := slack.NewInputBlock(InputPreset, plain(T(l, KRevisePresetLabel)), nil, slack.NewRadioButtonsBlockElement(InputPreset, options...))
	preset.Optional = true
	feedback := slack.NewInputBlock(InputFeedback, plain(T(l, KReviseFeedbackLabel)),
		plain(T(l, KReviseHint)),
		slack.NewPlainTextInputBlockElement(plain(T(l, KRevisePlaceholder)), InputFeedback).
			WithMultiline(true).WithMaxLength(workflow.MaxReasonLen))
	feedback.Optional = true
	return modal(l, CallbackRevise, a.ID, KReviseTitle, KReviseSubmit,
		slack.NewSectionBlock(mrkdwn(T(l, KReviseQuestion, Escape(a.Title))), nil, nil),
		preset,
		feedback)
}

// ApproveModal asks for the comment of an approval of a, and for the draft
// when a has drafts and draft is workflow.NoDraft (a fixed draft is the one
// whose button opened it). The comment is optional unless a's
// requireComment holds approve. With a quorum it says how approvals add
// up.
func ApproveModal(a workflow.Approval, draft int) slack.ModalViewRequest {
	l := a.Locale
	what := T(l, KApproveQuestion, Escape(a.Title))
	if draft >= 0 {
		what = T(l, KApproveQuestionDraft, draft+1, Escape(a.Title))
	}
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(what), nil, nil)}
	if len(a.Drafts) > 0 && draft < 0 {
		blocks = append(blocks, slack.NewInputBlock(InputDraft, plain(T(l, KApproveDraftLabel)), nil, draftChoice(a, InputDraft, nil)))
	}
	if note := quorumNote(a); note != "" {
		blocks = append(blocks, slack.NewContextBlock("quorum", mrkdwn(note)))
	}
	return modal(l, CallbackApprove, a.ID, KApproveTitle, KApproveSubmit, append(blocks, commentInput(a))...)
}

// draftChoice is a radio button per draft of a (those keep leaves out),
// labelled with its start.
func draftChoice(a workflow.Approval, actionID string, keep func(string) bool) *slack.RadioButtonsBlockElement {
	options := make([]*slack.OptionBlockObject, 0, len(a.Drafts))
	for i, d := range a.Drafts {
		if keep != nil && !keep(d) {
			continue
		}
		label := T(a.Locale, KApproveDraftOption, i+1, oneLine(d))
		options = append(options, slack.NewOptionBlockObject(strconv.Itoa(i), plainAuthor(label, maxOptionLen), nil))
	}
	return slack.NewRadioButtonsBlockElement(actionID, options...)
}

// quorumNote says how many approvals a needs and how far they are; "" for
// a quorum of 1.
func quorumNote(a workflow.Approval) string {
	q := a.Quorum()
	if q <= 1 {
		return ""
	}
	p, drafts := Progress(a), len(a.Drafts) > 1
	switch {
	case p != "" && drafts:
		return T(a.Locale, KApproveQuorumDraftsS, q, p)
	case p != "":
		return T(a.Locale, KApproveQuorumSoFar, q, p)
	case drafts:
		return T(a.Locale, KApproveQuorumDrafts, q)
	}
	return T(a.Locale, KApproveQuorum, q)
}

// commentInput is an approval's comment: optional unless a's
// requireComment holds approve.
func commentInput(a workflow.Approval) *slack.InputBlock {
	l := a.Locale
	required := slices.Contains(a.Policy.RequireComment, workflow.ActionApprove)
	hint := T(l, KApproveHintOptional)
	if required {
		hint = T(l, KApproveHintRequired)
	}
	comment := slack.NewInputBlock(InputComment, plain(T(l, KApproveCommentLabel)), plain(hint),
		slack.NewPlainTextInputBlockElement(plain(T(l, KApprovePlaceholder)), InputComment).
			WithMultiline(true).WithMaxLength(workflow.MaxReasonLen))
	comment.Optional = !required
	return comment
}

// DelegateModal asks whom to hand a to: one person, picked from the
// workspace's people.
func DelegateModal(a workflow.Approval) slack.ModalViewRequest {
	l := a.Locale
	picker := slack.NewOptionsSelectBlockElement(slack.OptTypeUser, plain(T(l, KDelegatePlaceholder)), InputDelegate)
	input := slack.NewInputBlock(InputDelegate, plain(T(l, KDelegateLabel)), plain(T(l, KDelegateHint)), picker)
	return modal(l, CallbackDelegate, a.ID, KDelegateTitle, KDelegateSubmit,
		slack.NewSectionBlock(mrkdwn(T(l, KDelegateQuestion, Escape(a.Title))), nil, nil),
		input)
}

// EditModal offers draft of a for editing, prefilled, in a multiline
// input as long as Slack's (workflow.MaxEditLen), with the approval's
// comment below: submitting approves the text as left. The draft must be
// editable (workflow.Editable).
func EditModal(a workflow.Approval, draft int) slack.ModalViewRequest {
	l := a.Locale
	input := slack.NewPlainTextInputBlockElement(nil, InputEdited).
		WithMultiline(true).WithMaxLength(workflow.MaxEditLen).WithInitialValue(a.Drafts[draft])
	blocks := []slack.Block{
		slack.NewSectionBlock(mrkdwn(T(l, KEditQuestion, draft+1, Escape(a.Title))), nil, nil),
		slack.NewInputBlock(InputEdited, plain(T(l, KEditLabel, draft+1)), plain(T(l, KEditHint)), input),
	}
	if note := quorumNote(a); note != "" {
		blocks = append(blocks, slack.NewContextBlock("quorum", mrkdwn(note)))
	}
	return modal(l, CallbackEdit, a.ID, KEditTitle, KEditSubmit, append(blocks, commentInput(a))...)
}

// EditPickModal asks which draft of a to edit, among those Slack's input
// can hold; its submission is answered with EditModal.
func EditPickModal(a workflow.Approval) slack.ModalViewRequest {
	l := a.Locale
	return modal(l, CallbackEditPick, a.ID, KEditTitle, KEditPickSubmit,
		slack.NewSectionBlock(mrkdwn(T(l, KEditPickQuestion, Escape(a.Title))), nil, nil),
		slack.NewInputBlock(InputDraft, plain(T(l, KEditPickLabel)), nil, draftChoice(a, InputDraft, workflow.Editable)))
}

// WithdrawModal asks the requester of a for an optional reason before
// withdrawing it.
func WithdrawModal(a workflow.Approval) slack.ModalViewRequest {
	l := a.Locale
	reason := slack.NewPlainTextInputBlockElement(plain(T(l, KWithdrawPlaceholder)), InputReason).
		WithMultiline(true).WithMaxLength(workflow.MaxReasonLen)
	input := slack.NewInputBlock(InputReason, plain(T(l, KWithdrawLabel)), plain(T(l, KWithdrawHint)), reason)
	input.Optional = true
	return modal(l, CallbackWithdraw, a.ID, KWithdrawTitle, KWithdrawSubmit,
		slack.NewSectionBlock(mrkdwn(T(l, KWithdrawQuestion, Escape(a.Title))), nil, nil),
		input)
}

// SureModal asks "are you sure?" before an action picked from a menu,
// saying text (SureText); submitting it does the action.
func SureModal(a workflow.Approval, text string) slack.ModalViewRequest {
	body, _ := fit(mrkdwnUnits(text), maxSectionLen, 0)
	return modal(a.Locale, CallbackSure, a.ID, KSureTitle, KConfirmGo, slack.NewSectionBlock(mrkdwn(body), nil, nil))
}
