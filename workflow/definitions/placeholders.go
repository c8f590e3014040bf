package definitions

// The placeholders of the shipped definitions: who may approve is part of
// the deployed state machine, not of an execution's input.
const (
	// Channel is the Slack channel ID the requests are posted in.
	Channel = "Channel"
	// Approvers is a comma-separated list of Slack user and user-group IDs
	// (no spaces): who may decide.
	Approvers = "Approvers"
	// EscalationApprovers is the same for the escalated request of
	// approve-or-escalate.
	EscalationApprovers = "EscalationApprovers"
)

// The placeholders of the Lambda functions the shipped definitions invoke:
// each takes a function's ARN (or its name, which lambda:invoke also
// accepts, in the state machine's account and Region).
const (
	// NotifierFunctionArn is the notifier (cmd/notifier), in every
	// definition.
	NotifierFunctionArn = "NotifierFunctionArn"
	// DraftAgentFunctionArn drafts posts (publish-with-approval, its
	// JSONata version, approve-or-escalate).
	DraftAgentFunctionArn = "DraftAgentFunctionArn"
	// PublishFunctionArn publishes the approved draft (the same three).
	PublishFunctionArn = "PublishFunctionArn"
	// FileRejectionFunctionArn records a rejection (approve-or-escalate).
	FileRejectionFunctionArn = "FileRejectionFunctionArn"
	// ProcessItemFunctionArn processes one item
	// (batch-with-approved-retries).
	ProcessItemFunctionArn = "ProcessItemFunctionArn"
)
