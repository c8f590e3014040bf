package slackbot

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/workflow"
)

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
	case blocks.CallbackApprove:
		d.Action = workflow.ActionApprove
		d.DraftIndex = s.ref.draft
		d.Text = strings.TrimSpace(inputValue(v, blocks.InputComment).Value)
		if picked := inputValue(v, blocks.InputDraft).SelectedOption.Value; d.DraftIndex == workflow.NoDraft && hasInput(v, blocks.InputDraft) {
			n, err := strconv.Atoi(picked)
			if err != nil || n < 0 || n >= workflow.MaxDrafts {
				return fail(blocks.InputDraft, "Pick the draft you approve.")
			}
			d.DraftIndex = n
		}
		switch {
		case utf8.RuneCountInString(d.Text) > workflow.MaxReasonLen:
			return fail(blocks.InputComment, tooLong)
		case s.ref.need && d.Text == "":
			return fail(blocks.InputComment, "This request needs a comment to approve it.")
		}
	case blocks.CallbackReject:
		d.Action = workflow.ActionReject
		d.Text = strings.TrimSpace(inputValue(v, blocks.InputReason).Value)
		switch {
		case utf8.RuneCountInString(d.Text) > workflow.MaxReasonLen:
			return fail(blocks.InputReason, tooLong)
		case s.ref.need && d.Text == "":
			return fail(blocks.InputReason, "This request needs a reason to reject it.")
		}
	case blocks.CallbackRevise:
		d.Action = workflow.ActionRevise
		d.Preset = inputValue(v, blocks.InputPreset).SelectedOption.Value
		d.Text = strings.TrimSpace(inputValue(v, blocks.InputFeedback).Value)
		switch {
		case utf8.RuneCountInString(d.Text) > workflow.MaxReasonLen:
			return fail(blocks.InputFeedback, tooLong)
		case d.Preset == "" && d.Text == "":
			return fail(blocks.InputFeedback, "Choose a change above or describe what should change.")
		}
	case blocks.CallbackDelegate:
		s.delegate = inputValue(v, blocks.InputDelegate).SelectedUser
		switch {
		case !workflow.IsUserID(s.delegate):
			return fail(blocks.InputDelegate, "Pick the person to hand the request to.")
		case s.delegate == user:
			return fail(blocks.InputDelegate, "You cannot hand a request to yourself.")
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
