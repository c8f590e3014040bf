package blocks

// The action IDs of the buttons and the callback IDs of the modals: what
// the bot routes on.
const (
	ActionApprove             = "approve"
	ActionApproveDraft        = "approve_draft_" // followed by the 0-based draft index
	ActionApproveComment      = "approve_comment"
	ActionApproveCommentDraft = "approve_comment_draft_" // followed by the 0-based draft index
	ActionReject              = "reject"
	ActionRevise              = "revise"
	ActionSkip                = "skip"
	ActionDelegate            = "delegate"

	CallbackApprove  = "approve"
	CallbackReject   = "reject"
	CallbackRevise   = "revise"
	CallbackDelegate = "delegate"
)
