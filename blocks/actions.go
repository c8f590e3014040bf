package blocks

import (
	"slices"
	"strconv"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// What a request offers, and how it fits a short message: at most
// MaxButtons buttons, the rest in one overflow menu of at most
// MaxOverflowOptions options (Slack's limit), and the revision presets as
// buttons while the budget allows.
//
//   - Approving: "Approve" on a request without drafts; "Approve draft N"
//     for up to MaxDraftButtons drafts; above that a select of drafts and
//     one "Approve" button.
//   - "Reject".
//   - Each revision preset is one click away: a button while the budget
//     allows, otherwise an option of the overflow menu, which also holds
//     "Other changes…" (the modal with every preset and free text). When
//     the overflow would hold more than MaxOverflowOptions, the presets
//     left go in a menu of their own ("Request changes…").
//   - The overflow menu: "Approve with comment" (or "Edit & approve" when
//     the request allows edits), "Skip", "Hand over" and, with a requester,
//     "Withdraw request".
//
// Buttons of the actions listed in the request's confirm carry Slack's
// confirm dialog; a confirmed action picked from a menu (whose options
// cannot carry one) opens SureModal instead.
const (
	MaxButtons         = 5
	MaxOverflowOptions = 5
	MaxDraftButtons    = 3
	// maxButtonLen is Slack's limit on a button's text, and on an
	// option's.
	maxButtonLen = 75
	// Slack's limits on a confirm dialog.
	maxConfirmTitle  = 100
	maxConfirmText   = 300
	maxConfirmButton = 30
	// maxLabelJSON and maxConfirmJSON bound a label and a confirm dialog's
	// text as JSON, so that ten presets and five drafts full of characters
	// that grow when escaped leave the message room for its body.
	maxLabelJSON   = 100
	maxConfirmJSON = 160
)

// actionsBlock is the actions of a, as they fit on its message.
func actionsBlock(a workflow.Approval) *slack.ActionBlock { return actionsFor(a, true) }

// actionsFor is the actions of a, with the requester's Withdraw when
// withdraw is set (the message, which everyone shares; an approver's App
// Home leaves it to the requester's own).
func actionsFor(a workflow.Approval, withdraw bool) *slack.ActionBlock {
	l := a.Locale
	needComment := slices.Contains(a.Policy.RequireComment, workflow.ActionApprove)
	approveID, draftID := ActionApprove, ActionApproveDraft
	if needComment {
		approveID, draftID = ActionApproveComment, ActionApproveCommentDraft
	}
	var elements []slack.BlockElement
	buttons := 0
	add := func(b *slack.ButtonBlockElement) {
		elements = append(elements, b)
		buttons++
	}
	switch n := len(a.Drafts); {
	case n == 0:
		add(confirmed(a, "approve", button(approveID, T(l, KBtnApprove), a.ID, slack.StylePrimary), T(l, KConfirmApprove)))
	case n <= MaxDraftButtons:
		for i := range a.Drafts {
			style := slack.Style("")
			if i == 0 {
				style = slack.StylePrimary
			}
			add(confirmed(a, "approve", button(draftID+strconv.Itoa(i), T(l, KBtnApproveDraft, i+1), a.ID, style), T(l, KConfirmApproveDraft, i+1)))
		}
	default:
		options := make([]*slack.OptionBlockObject, 0, n)
		for i, d := range a.Drafts {
			options = append(options, slack.NewOptionBlockObject(strconv.Itoa(i), label(T(l, KPickDraftOption, i+1, oneLine(d))), nil))
		}
		elements = append(elements, slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain(T(l, KPickDraft)), ActionPickDraft, options...))
		add(confirmed(a, "approve", button(ActionApprovePicked, T(l, KBtnApprove), a.ID, slack.StylePrimary), T(l, KConfirmApprovePicked)))
	}
	add(confirmed(a, "reject", button(ActionReject, T(l, KBtnReject), a.ID, slack.StyleDanger), T(l, KConfirmReject)))

	var more []*slack.OptionBlockObject
	if EditableDrafts(a) {
		more = append(more, option(ActionEdit, T(l, KBtnEdit)))
	} else if !needComment {
		more = append(more, option(ActionApproveComment, T(l, KBtnApproveComment)))
	}
	if a.AllowSkip {
		more = append(more, option(ActionSkip, T(l, KBtnSkip)))
	}
	if a.Policy.AllowDelegation {
		more = append(more, option(ActionDelegate, T(l, KBtnDelegate)))
	}
	if a.RequestedBy != "" && withdraw {
		more = append(more, option(ActionWithdraw, T(l, KBtnWithdraw)))
	}

	var changes []*slack.OptionBlockObject
	if len(a.RevisionPresets) > 0 {
		shown := min(len(a.RevisionPresets), MaxButtons-buttons)
		for i, p := range a.RevisionPresets[:shown] {
			b := slack.NewButtonBlockElement(PresetAction(i), a.ID, label(p))
			add(confirmed(a, "revise", b, T(l, KConfirmRevise, Escape(p))))
		}
		for i, p := range a.RevisionPresets[shown:] {
			changes = append(changes, slack.NewOptionBlockObject(PresetAction(shown+i), label(p), nil))
		}
		changes = append(changes, option(ActionRevise, T(l, KBtnCustom)))
		if len(changes)+len(more) <= MaxOverflowOptions {
			more, changes = append(changes, more...), nil
		}
	}
	if len(changes) > 0 {
		elements = append(elements, slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain(T(l, KMoreChanges)), ActionChanges, changes...))
	}
	if len(more) > 0 {
		elements = append(elements, slack.NewOverflowBlockElement(ActionMore, more...))
	}
	return slack.NewActionBlock(a.ID, elements...)
}

// EditableDrafts reports whether a allows edits and has a draft that
// fits Slack's text input.
func EditableDrafts(a workflow.Approval) bool {
	return a.AllowEdit && slices.ContainsFunc(a.Drafts, workflow.Editable)
}

// editNote says which drafts cannot be edited in Slack, and why, on a
// request that allows edits; nil when every draft can be.
func editNote(a workflow.Approval) slack.Block {
	if !a.AllowEdit {
		return nil
	}
	var lines []string
	for i, d := range a.Drafts {
		if !workflow.Editable(d) {
			lines = append(lines, T(a.Locale, KDraftNotEditable, i+1, workflow.EditLen(d), workflow.MaxEditLen))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	elements := make([]slack.MixedElement, 0, len(lines))
	for _, l := range lines {
		elements = append(elements, mrkdwn(l))
	}
	return slack.NewContextBlock("not_editable", elements...)
}

// confirmed gives b Slack's confirm dialog saying text when a's confirm
// lists action (a word of workflow.Confirmable).
func confirmed(a workflow.Approval, action string, b *slack.ButtonBlockElement, text string) *slack.ButtonBlockElement {
	if a.Confirms(action) {
		b = b.WithConfirm(ConfirmDialog(a.Locale, text))
	}
	return b
}

// ConfirmDialog is Slack's "are you sure?" dialog saying text (mrkdwn,
// cut to Slack's 300 characters).
func ConfirmDialog(locale, text string) *slack.ConfirmationBlockObject {
	body, _ := fit(mrkdwnUnits(text), maxConfirmText, maxConfirmJSON)
	return slack.NewConfirmationBlockObject(
		plainAuthor(T(locale, KConfirmTitle), maxConfirmTitle),
		mrkdwn(body),
		plainAuthor(T(locale, KConfirmGo), maxConfirmButton),
		plainAuthor(T(locale, KConfirmDeny), maxConfirmButton))
}

// SureText is what the confirm dialog of action says on a (ActionSkip,
// ActionWithdraw, PresetAction(i)), for SureModal; "" when a's confirm
// does not list it.
func SureText(a workflow.Approval, action string) string {
	l := a.Locale
	switch {
	case action == ActionSkip && a.Confirms("skip"):
		return T(l, KConfirmSkip)
	case action == ActionWithdraw && a.Confirms("withdraw"):
		return T(l, KConfirmWithdraw)
	case a.Confirms("revise"):
		if i, ok := PresetIndex(action); ok && i < len(a.RevisionPresets) {
			return T(l, KConfirmRevise, Escape(a.RevisionPresets[i]))
		}
	}
	return ""
}

// PresetIndex reads the preset index of a PresetAction.
func PresetIndex(action string) (int, bool) {
	s, ok := cutPrefix(action, ActionPreset)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && n < workflow.MaxPresets
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return "", false
	}
	return s[len(prefix):], true
}

// label is the text of a button or an option: at most Slack's 75
// characters and maxLabelJSON of JSON.
func label(text string) *slack.TextBlockObject {
	return plainAuthorJSON(text, maxButtonLen, maxLabelJSON)
}

func button(actionID, text, value string, style slack.Style) *slack.ButtonBlockElement {
	b := slack.NewButtonBlockElement(actionID, value, label(text))
	if style != "" {
		b = b.WithStyle(style)
	}
	return b
}

func option(value, text string) *slack.OptionBlockObject {
	return slack.NewOptionBlockObject(value, label(text), nil)
}
