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

// readSubmission reads a submitted approve, reject, revise, delegate,
// edit, edit-pick, withdraw or "are you sure?" modal of user. Its checks
// are cheap and local, so they run before the ack; the domain checks the
// rest. Errors are in the request's language, which the modal carries.
func readSubmission(v slack.View, user string) submission {
	s := submission{ref: readModalRef(v.PrivateMetadata), decision: workflow.Decision{DraftIndex: workflow.NoDraft}}
	d := &s.decision
	l := s.ref.locale
	fail := func(block string, key blocks.Key, args ...any) submission {
		s.errs = map[string]string{block: blocks.T(l, key, args...)}
		return s
	}
	tooLong := func(text string) bool { return utf8.RuneCountInString(text) > workflow.MaxReasonLen }
	switch v.CallbackID {
	case blocks.CallbackApprove, blocks.CallbackEdit:
		d.Action = workflow.ActionApprove
		d.DraftIndex = s.ref.draft
		d.Text = strings.TrimSpace(inputValue(v, blocks.InputComment).Value)
		if picked := inputValue(v, blocks.InputDraft).SelectedOption.Value; d.DraftIndex == workflow.NoDraft && hasInput(v, blocks.InputDraft) {
			n, err := strconv.Atoi(picked)
			if err != nil || n < 0 || n >= workflow.MaxDrafts {
				return fail(blocks.InputDraft, blocks.KSubPickDraft)
			}
			d.DraftIndex = n
		}
		if v.CallbackID == blocks.CallbackEdit {
			d.Edited = inputValue(v, blocks.InputEdited).Value
			switch {
			case d.DraftIndex == workflow.NoDraft:
				return fail(blocks.InputEdited, blocks.KSubPickDraft)
			case strings.TrimSpace(d.Edited) == "":
				return fail(blocks.InputEdited, "why.edit_empty")
			case workflow.EditLen(d.Edited) > workflow.MaxEditLen:
				return fail(blocks.InputEdited, blocks.KSubTooLong, workflow.MaxEditLen)
			}
		}
		switch {
		case tooLong(d.Text):
			return fail(blocks.InputComment, blocks.KSubTooLong, workflow.MaxReasonLen)
		case s.ref.need && d.Text == "":
			return fail(blocks.InputComment, "why.needs_comment")
		}
	case blocks.CallbackEditPick:
		n, err := strconv.Atoi(inputValue(v, blocks.InputDraft).SelectedOption.Value)
		if err != nil || n < 0 || n >= workflow.MaxDrafts {
			return fail(blocks.InputDraft, blocks.KSubPickDraft)
		}
		s.ref.draft = n
	case blocks.CallbackReject, blocks.CallbackWithdraw:
		d.Action = workflow.ActionReject
		if v.CallbackID == blocks.CallbackWithdraw {
			d.Action = workflow.ActionWithdraw
		}
		d.Text = strings.TrimSpace(inputValue(v, blocks.InputReason).Value)
		switch {
		case tooLong(d.Text):
			return fail(blocks.InputReason, blocks.KSubTooLong, workflow.MaxReasonLen)
		case s.ref.need && d.Text == "" && d.Action == workflow.ActionReject:
			return fail(blocks.InputReason, "why.needs_reason")
		}
	case blocks.CallbackRevise:
		d.Action = workflow.ActionRevise
		d.Preset = inputValue(v, blocks.InputPreset).SelectedOption.Value
		d.Text = strings.TrimSpace(inputValue(v, blocks.InputFeedback).Value)
		switch {
		case tooLong(d.Text):
			return fail(blocks.InputFeedback, blocks.KSubTooLong, workflow.MaxReasonLen)
		case d.Preset == "" && d.Text == "":
			return fail(blocks.InputFeedback, blocks.KSubDescribe)
		}
	case blocks.CallbackDelegate:
		s.delegate = inputValue(v, blocks.InputDelegate).SelectedUser
		switch {
		case !workflow.IsUserID(s.delegate):
			return fail(blocks.InputDelegate, blocks.KSubPickDelegate)
		case s.delegate == user:
			return fail(blocks.InputDelegate, "why.delegate_self")
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

func inputValue(v slack.View, blockID string) slack.BlockAction {
	if v.State == nil {
		return slack.BlockAction{}
	}
	return v.State.Values[blockID][blockID]
}
