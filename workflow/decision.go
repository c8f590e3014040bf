package workflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Action is what a decision does to the execution.
type Action string

const (
	ActionApprove Action = "approved" // SendTaskSuccess
	ActionRevise  Action = "revise"   // SendTaskSuccess with feedback
	ActionSkip    Action = "skip"     // SendTaskSuccess
	ActionReject  Action = "rejected" // SendTaskFailure "Rejected"
	// ActionExpire is taken by the service itself when nobody decided before
	// the deadline: SendTaskFailure "ApprovalExpired" (a task that already
	// timed out just confirms the expiry).
	ActionExpire Action = "expired"
	// ActionWithdraw is taken by the requester, who takes the request
	// back: SendTaskFailure "Withdrawn".
	ActionWithdraw Action = "withdrawn"
)

// Error names the execution sees on SendTaskFailure; a Catch matches them.
const (
	ErrorRejected        = "Rejected"
	ErrorApprovalExpired = "ApprovalExpired"
	ErrorWithdrawn       = "Withdrawn"
)

// MaxReasonLen bounds reasons and feedback (a modal text input's limit).
const MaxReasonLen = 3000

// Decision is what a person decided about an approval.
type Decision struct {
	Action Action
	// DraftIndex is the 0-based draft approved; -1 when no draft applies.
	DraftIndex int
	Preset     string // revise: the preset chosen, if any
	// Text is an approval's comment, a change request's free-text
	// feedback, a rejection's reason.
	Text string
	// Edited is the approved draft as the approver edited it (AllowEdit);
	// "" when it was approved as it was offered.
	Edited    string
	DecidedBy string // Slack user ID, or DecidedByDeadline
	DecidedAt time.Time
}

// NoDraft is the DraftIndex of a decision that picks no draft.
const NoDraft = -1

// Validate checks the decision against what the request offered. It
// returns an *Error with code EINVALID.
func (d Decision) Validate(a Approval) error {
	if utf8.RuneCountInString(d.Text) > MaxReasonLen {
		return refusal(EINVALID, WhyTextTooLong, []string{strconv.Itoa(MaxReasonLen)}, "the text is longer than %d characters", MaxReasonLen)
	}
	if slices.Contains(a.Policy.RequireComment, d.Action) && strings.TrimSpace(d.Text) == "" {
		if d.Action == ActionReject {
			return refusal(EINVALID, WhyNeedsReason, nil, "This request needs a reason to reject it.")
		}
		return refusal(EINVALID, WhyNeedsComment, nil, "This request needs a comment to approve it.")
	}
	switch d.Action {
	case ActionApprove:
		if len(a.Drafts) > 0 && (d.DraftIndex < 0 || d.DraftIndex >= len(a.Drafts)) {
			return refusal(EINVALID, WhyPickDraft, []string{strconv.Itoa(len(a.Drafts))}, "pick one of the %d drafts to approve", len(a.Drafts))
		}
		if len(a.Drafts) == 0 && d.DraftIndex != NoDraft {
			return refusal(EINVALID, WhyNoDrafts, nil, "this request has no drafts to pick from")
		}
		if err := d.validateEdit(a); err != nil {
			return err
		}
	case ActionRevise:
		if len(a.RevisionPresets) == 0 {
			return refusal(EINVALID, WhyNoChanges, nil, "this request does not accept change requests")
		}
		if d.Preset != "" && !slices.Contains(a.RevisionPresets, d.Preset) {
			return refusal(EINVALID, WhyUnknownPreset, nil, "%q is not one of the offered changes", clip(d.Preset))
		}
		if d.Preset == "" && strings.TrimSpace(d.Text) == "" {
			return refusal(EINVALID, WhyDescribeChange, nil, "choose a change or describe what to change")
		}
	case ActionSkip:
		if !a.AllowSkip {
			return refusal(EINVALID, WhyNoSkip, nil, "this request cannot be skipped")
		}
	case ActionReject:
	case ActionWithdraw:
		if a.RequestedBy == "" || d.DecidedBy != a.RequestedBy {
			return refusal(EFORBIDDEN, WhyNotRequester, nil, "Only the person who asked for this approval can withdraw it.")
		}
	default:
		return refusal(EINVALID, WhyUnknownAction, nil, "unknown action %q", clip(string(d.Action)))
	}
	if d.Edited != "" && d.Action != ActionApprove {
		return refusal(EINVALID, WhyNoEdit, nil, "only an approval can carry an edited draft")
	}
	return nil
}

// validateEdit checks an approval's edited draft: the request allows
// edits, the text is not empty and fits Slack's text input.
func (d Decision) validateEdit(a Approval) error {
	switch {
	case d.Edited == "":
		return nil
	case !a.AllowEdit:
		return refusal(EINVALID, WhyNoEdit, nil, "this request does not allow editing its drafts")
	case strings.TrimSpace(d.Edited) == "":
		return refusal(EINVALID, WhyEditEmpty, nil, "the edited draft is empty")
	case EditLen(d.Edited) > MaxEditLen:
		return refusal(EINVALID, WhyEditTooLong, []string{strconv.Itoa(MaxEditLen)}, "the edited draft is longer than %d characters", MaxEditLen)
	}
	return nil
}

// Approved is the text d approves on a: the edited draft, the chosen
// draft, or "" for an approval without drafts (and any other decision).
func (d Decision) Approved(a Approval) string {
	switch {
	case d.Action != ActionApprove || d.DraftIndex < 0 || d.DraftIndex >= len(a.Drafts):
		return ""
	case d.Edited != "":
		return d.Edited
	}
	return a.Drafts[d.DraftIndex]
}

// Succeeds reports whether the decision resumes the execution with
// SendTaskSuccess (rather than SendTaskFailure).
func (d Decision) Succeeds() bool {
	return d.Action == ActionApprove || d.Action == ActionRevise || d.Action == ActionSkip
}

// Feedback is the change request as the execution receives it: the preset
// (if any) and the free text, preset first.
func (d Decision) Feedback() string {
	text := strings.TrimSpace(d.Text)
	switch {
	case d.Preset == "":
		return text
	case text == "":
		return d.Preset
	}
	return d.Preset + "\n" + text
}

// output is the JSON an execution receives on success (docs/contract.md, "What the
// execution receives").
type output struct {
	ApprovalID    string             `json:"approvalId"`
	Action        Action             `json:"action"`
	DraftIndex    *int               `json:"draftIndex,omitempty"`
	SelectedDraft *string            `json:"selectedDraft,omitempty"`
	OriginalDraft *string            `json:"originalDraft,omitempty"`
	Edited        *bool              `json:"edited,omitempty"`
	Preset        string             `json:"preset,omitempty"`
	Feedback      *string            `json:"feedback,omitempty"`
	DecidedBy     string             `json:"decidedBy"`
	DecidedAt     string             `json:"decidedAt"`
	Approvals     []outputApproval   `json:"approvals"`
	Comment       string             `json:"comment,omitempty"`
	Delegations   []outputDelegation `json:"delegations,omitempty"`
}

type outputApproval struct {
	UserID  string `json:"userId"`
	At      string `json:"at"`
	Comment string `json:"comment"`
}

type outputDelegation struct {
	From string `json:"from"`
	To   string `json:"to"`
	At   string `json:"at"`
}

// Output is the SendTaskSuccess output for a succeeding decision on a.
// "approvals" lists who made the decision: for an approval, the votes for
// the approved draft (one when the quorum is 1); for a change request or
// a skip, the person; for onDeadline, nobody.
func (d Decision) Output(a Approval) ([]byte, error) {
	if !d.Succeeds() {
		return nil, fmt.Errorf("decision %q does not resume with success", d.Action)
	}
	o := output{
		ApprovalID: a.ID,
		Action:     d.Action,
		DecidedBy:  d.DecidedBy,
		DecidedAt:  timestamp(d.DecidedAt),
		Approvals:  []outputApproval{},
	}
	if d.Action == ActionApprove && len(a.Drafts) > 0 && d.DraftIndex >= 0 && d.DraftIndex < len(a.Drafts) {
		i, draft, selected := d.DraftIndex, a.Drafts[d.DraftIndex], d.Approved(a)
		o.DraftIndex, o.SelectedDraft = &i, &selected
		if a.AllowEdit {
			edited := d.Edited != ""
			o.Edited = &edited
		}
		if d.Edited != "" {
			o.OriginalDraft = &draft
		}
	}
	if d.Action == ActionRevise {
		fb := d.Feedback()
		o.Preset, o.Feedback = d.Preset, &fb
	}
	switch {
	case d.DecidedBy == DecidedByDeadline:
	case d.Action == ActionApprove:
		for _, v := range a.VotesFor(d.DraftIndex, d.Edited) {
			o.Approvals = append(o.Approvals, outputApproval{UserID: v.UserID, At: timestamp(v.At), Comment: strings.TrimSpace(v.Comment)})
		}
		o.Comment = strings.TrimSpace(d.Text)
	default:
		o.Approvals = append(o.Approvals, outputApproval{UserID: d.DecidedBy, At: o.DecidedAt})
	}
	for _, x := range a.Delegations {
		o.Delegations = append(o.Delegations, outputDelegation{From: x.From, To: x.To, At: timestamp(x.At)})
	}
	return json.Marshal(o)
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Failure is the SendTaskFailure error name and cause for a failing
// decision on a.
func (d Decision) Failure(a Approval) (errorName, cause string) {
	if d.Action == ActionExpire {
		return ErrorApprovalExpired, "No decision was made on approval " + a.ID + " before its deadline."
	}
	if d.Action == ActionWithdraw {
		if reason := strings.TrimSpace(d.Text); reason != "" {
			return ErrorWithdrawn, "Withdrawn by " + d.DecidedBy + ": " + reason
		}
		return ErrorWithdrawn, "Withdrawn by " + d.DecidedBy + " without a reason."
	}
	if d.DecidedBy == DecidedByDeadline {
		return ErrorRejected, "Nobody decided approval " + a.ID + " before its deadline, so it was rejected, as its onDeadline says."
	}
	if reason := strings.TrimSpace(d.Text); reason != "" {
		return ErrorRejected, reason
	}
	return ErrorRejected, "Rejected by " + d.DecidedBy + " without a reason."
}
