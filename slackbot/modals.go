package slackbot

import (
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// Block and action IDs of the modal inputs.
const (
	inputReason   = "reason"
	inputPreset   = "preset"
	inputFeedback = "feedback"
)

// RejectModal asks for an optional reason before rejecting a. The modal's
// private_metadata is the approval ID.
func RejectModal(a workflow.Approval) slack.ModalViewRequest {
	reason := slack.NewPlainTextInputBlockElement(plain("Why is this rejected?"), inputReason).
		WithMultiline(true).WithMaxLength(workflow.MaxReasonLen)
	input := slack.NewInputBlock(inputReason, plain("Reason"),
		plain("Optional. The workflow receives it as the failure cause; without one it is told who rejected."), reason)
	input.Optional = true
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      callbackReject,
		PrivateMetadata: a.ID,
		Title:           plain("Reject request"),
		Submit:          plain("Reject"),
		Close:           plain("Cancel"),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(mrkdwn("Reject *"+escape(a.Title)+"*?"), nil, nil),
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
	preset := slack.NewInputBlock(inputPreset, plain("Change"), nil, slack.NewRadioButtonsBlockElement(inputPreset, options...))
	preset.Optional = true
	feedback := slack.NewInputBlock(inputFeedback, plain("What should change?"),
		plain("Choose a change above, describe it here, or both."),
		slack.NewPlainTextInputBlockElement(plain("Details for the next draft"), inputFeedback).
			WithMultiline(true).WithMaxLength(workflow.MaxReasonLen))
	feedback.Optional = true
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      callbackRevise,
		PrivateMetadata: a.ID,
		Title:           plain("Request changes"),
		Submit:          plain("Send"),
		Close:           plain("Cancel"),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(mrkdwn("Request changes to *"+escape(a.Title)+"*"), nil, nil),
			preset,
			feedback,
		}},
	}
}

// readSubmission turns a submitted reject or revise modal into the
// approval ID and the decision (without who and when). errs, keyed by
// block ID, is non-nil when the input is not acceptable; it is what the
// modal shows. Checks are cheap and local, so they can run before the ack.
func readSubmission(v slack.View) (id string, d workflow.Decision, errs map[string]string) {
	id = strings.TrimSpace(v.PrivateMetadata)
	d.DraftIndex = workflow.NoDraft
	switch v.CallbackID {
	case callbackReject:
		d.Action = workflow.ActionReject
		d.Text = strings.TrimSpace(inputValue(v, inputReason).Value)
		if utf8.RuneCountInString(d.Text) > workflow.MaxReasonLen {
			return id, d, map[string]string{inputReason: tooLong}
		}
	case callbackRevise:
		d.Action = workflow.ActionRevise
		d.Preset = inputValue(v, inputPreset).SelectedOption.Value
		d.Text = strings.TrimSpace(inputValue(v, inputFeedback).Value)
		switch {
		case utf8.RuneCountInString(d.Text) > workflow.MaxReasonLen:
			return id, d, map[string]string{inputFeedback: tooLong}
		case d.Preset == "" && d.Text == "":
			return id, d, map[string]string{inputFeedback: "Choose a change above or describe what should change."}
		}
	}
	return id, d, nil
}

const tooLong = "Please keep it under 3000 characters."

func inputValue(v slack.View, blockID string) slack.BlockAction {
	if v.State == nil {
		return slack.BlockAction{}
	}
	return v.State.Values[blockID][blockID]
}
