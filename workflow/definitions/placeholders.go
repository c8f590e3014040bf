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
	// (batch-with-approved-retries.lambda).
	ProcessItemFunctionArn = "ProcessItemFunctionArn"
)

// The placeholders of the batch workflows' S3 bucket and ECS worker.
const (
	// BatchBucket is the S3 bucket (its name) the batch workflows read
	// their items from (the input's itemsKey) and write their results to,
	// under batch-results/.
	BatchBucket = "BatchBucket"
	// WorkerCluster is the ECS cluster (name or ARN) the worker tasks run
	// in (batch-with-approved-retries).
	WorkerCluster = "WorkerCluster"
	// WorkerTaskDefinition is the worker's task definition (family,
	// family:revision or ARN), run on Fargate.
	WorkerTaskDefinition = "WorkerTaskDefinition"
	// WorkerContainer is the name of the task definition's container that
	// gets the item (in the ITEM environment variable).
	WorkerContainer = "WorkerContainer"
	// WorkerSubnets and WorkerSecurityGroups are the tasks' network:
	// comma-separated IDs, no spaces.
	WorkerSubnets        = "WorkerSubnets"
	WorkerSecurityGroups = "WorkerSecurityGroups"
)
