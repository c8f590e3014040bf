package slackbot

import (
	"fmt"
	"slices"
	"strconv"
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
	inputDraft    = "draft"
	inputComment  = "comment"
	inputDelegate = "delegate"
)

// RejectModal asks for a reason before rejecting a: optional, unless
// a's requireComment holds reject. The modal's private_metadata is the
// approval ID (the handler replaces it with a modalRef).
func RejectModal(a workflow.Approval) slack.ModalViewRequest {
	required := slices.Contains(a.Policy.RequireComment, workflow.ActionReject)
	reason := slack.NewPlainTextInputBlockElement(plain("Why is this rejected?"), inputReason).
		WithMultiline(true).WithMaxLength(workflow.MaxReasonLen)
	hint := "Optional. The workflow receives it as the failure cause; without one it is told who rejected."
	if required {
		hint = "Required by this request. The workflow receives it as the failure cause."
	}
	input := slack.NewInputBlock(inputReason, plain("Reason"), plain(hint), reason)
	input.Optional = !required
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

// submission is a submitted decision modal, read: the modal's reference,
// the decision (without who and when) or, for a hand-over, the delegate,
// and errs, keyed by block ID, when the input is not acceptable (what the
// modal then shows).
type submission struct {
	ref      modalRef
	decision workflow.Decision
	delegate string
	errs     map[string]string
}

// readSubmission reads a submitted approve, reject, revise or delegate
// modal of user. Its checks are cheap and local, so they run before the
// ack; the domain checks the rest.
func readSubmission(v slack.View, user string) submission {
	s := submission{ref: readModalRef(v.PrivateMetadata), decision: workflow.Decision{DraftIndex: workflow.NoDraft}}
	d := &s.decision
	fail := func(block, msg string) submission {
		s.errs = map[string]string{block: msg}
		return s
	}
	switch v.CallbackID {
	case callbackApprove:
		d.Action = workflow.ActionApprove
		d.DraftIndex = s.ref.draft
		d.Text = strings.TrimSpace(inputValue(v, inputComment).Value)
		if picked := inputValue(v, inputDraft).SelectedOption.Value; d.DraftIndex == workflow.NoDraft && hasInput(v, inputDraft) {
			n, err := strconv.Atoi(picked)
			if err != nil || n < 0 || n >= workflow.MaxDrafts {
				return fail(inputDraft, "Pick the draft you approve.")
			}
			d.DraftIndex = n
		}
		switch {
		case utf8.RuneCountInString(d.Text) > workflow.MaxReasonLen:
			return fail(inputComment, tooLong)
		case s.ref.need && d.Text == "":
			return fail(inputComment, "This request needs a comment to approve it.")
		}
	case callbackReject:
		d.Action = workflow.ActionReject
		d.Text = strings.TrimSpace(inputValue(v, inputReason).Value)
		switch {
		case utf8.RuneCountInString(d.Text) > workflow.MaxReasonLen:
			return fail(inputReason, tooLong)
		case s.ref.need && d.Text == "":
			return fail(inputReason, "This request needs a reason to reject it.")
		}
	case callbackRevise:
		d.Action = workflow.ActionRevise
		d.Preset = inputValue(v, inputPreset).SelectedOption.Value
		d.Text = strings.TrimSpace(inputValue(v, inputFeedback).Value)
		switch {
		case utf8.RuneCountInString(d.Text) > workflow.MaxReasonLen:
			return fail(inputFeedback, tooLong)
		case d.Preset == "" && d.Text == "":
			return fail(inputFeedback, "Choose a change above or describe what should change.")
		}
	case callbackDelegate:
		s.delegate = inputValue(v, inputDelegate).SelectedUser
		switch {
		case !workflow.IsUserID(s.delegate):
			return fail(inputDelegate, "Pick the person to hand the request to.")
		case s.delegate == user:
			return fail(inputDelegate, "You cannot hand a request to yourself.")
		}
	}
	return s
}

// hasInput reports whether the submitted view has the input block.
func hasInput(v slack.View, blockID string) bool {
	for _, b := range v.Blocks.BlockSet {
		if in, ok := b.(*slack.InputBlock); ok && in.BlockID == blockID {
			return true
		}
	}
	return v.State != nil && v.State.Values[blockID] != nil
}

const tooLong = "Please keep it under 3000 characters."

func inputValue(v slack.View, blockID string) slack.BlockAction {
	if v.State == nil {
		return slack.BlockAction{}
	}
	return v.State.Values[blockID][blockID]
}

// ApproveModal asks for the comment of an approval of a, and for the draft
// when a has drafts and draft is workflow.NoDraft (a fixed draft is the one
// whose button opened it). The comment is optional unless a's
// requireComment holds approve. With a quorum it says how approvals add
// up. The modal's private_metadata is the approval ID (the handler
// replaces it with a modalRef).
func ApproveModal(a workflow.Approval, draft int) slack.ModalViewRequest {
	required := slices.Contains(a.Policy.RequireComment, workflow.ActionApprove)
	what := "Approve *" + escape(a.Title) + "*?"
	if draft >= 0 {
		what = fmt.Sprintf("Approve draft %d of *%s*?", draft+1, escape(a.Title))
	}
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(what), nil, nil)}
	if len(a.Drafts) > 0 && draft < 0 {
		options := make([]*slack.OptionBlockObject, 0, len(a.Drafts))
		for i, d := range a.Drafts {
			label := fmt.Sprintf("Draft %d: %s", i+1, oneLine(d))
			options = append(options, slack.NewOptionBlockObject(strconv.Itoa(i), plainAuthor(label, maxOptionLen), nil))
		}
		blocks = append(blocks, slack.NewInputBlock(inputDraft, plain("Draft"), nil, slack.NewRadioButtonsBlockElement(inputDraft, options...)))
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
	comment := slack.NewInputBlock(inputComment, plain("Comment"), plain(hint),
		slack.NewPlainTextInputBlockElement(plain("Why do you approve?"), inputComment).
			WithMultiline(true).WithMaxLength(workflow.MaxReasonLen))
	comment.Optional = !required
	blocks = append(blocks, comment)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      callbackApprove,
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
	picker := slack.NewOptionsSelectBlockElement(slack.OptTypeUser, plain("Pick a person"), inputDelegate)
	input := slack.NewInputBlock(inputDelegate, plain("Hand it to"),
		plain("They may decide it from then on, and you no longer may, until it is handed back to you."), picker)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      callbackDelegate,
		PrivateMetadata: a.ID,
		Title:           plain("Hand over request"),
		Submit:          plain("Hand over"),
		Close:           plain("Cancel"),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(mrkdwn("Hand *"+escape(a.Title)+"* to somebody else to decide."), nil, nil),
			input,
		}},
	}
}
