package slackbot

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/slack-go/slack"
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
