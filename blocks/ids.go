package blocks

import "strconv"

// The action IDs of the buttons and menus and the callback IDs of the
// modals: what the bot routes on.
const (
	ActionApprove             = "approve"
	ActionApproveDraft        = "approve_draft_" // followed by the 0-based draft index
	ActionApproveComment      = "approve_comment"
	ActionApproveCommentDraft = "approve_comment_draft_" // followed by the 0-based draft index
	ActionReject              = "reject"
	ActionRevise              = "revise"
	ActionSkip                = "skip"
	ActionDelegate            = "delegate"
	// ActionPreset is a one-click change request: followed by the 0-based
	// index of the revision preset.
	ActionPreset = "preset_"
	// ActionEdit opens "Edit & approve"; ActionWithdraw the requester's
	// "Withdraw request".
	ActionEdit     = "edit"
	ActionWithdraw = "withdraw"
	// ActionPickDraft is the select of drafts of a request with more than
	// MaxDraftButtons drafts; ActionApprovePicked approves the draft picked
	// there (the click's state holds it).
	ActionPickDraft     = "pick_draft"
	ActionApprovePicked = "approve_picked"
	// ActionMore is the overflow menu and ActionChanges the menu of change
	// requests: the option picked carries one of the action IDs above as
	// its value.
	ActionMore    = "more"
	ActionChanges = "changes"

	CallbackApprove  = "approve"
	CallbackReject   = "reject"
	CallbackRevise   = "revise"
	CallbackDelegate = "delegate"
	CallbackEdit     = "edit"
	CallbackEditPick = "edit_pick"
	CallbackWithdraw = "withdraw"
	// CallbackSure asks "are you sure?" for an action picked from a menu,
	// whose options cannot carry a confirm dialog of their own.
	CallbackSure = "sure"
)

// PresetAction is the action ID of the i-th revision preset's button.
func PresetAction(i int) string { return ActionPreset + strconv.Itoa(i) }
