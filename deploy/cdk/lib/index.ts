export { Approvals, ApprovalsCode, ApprovalsProps } from './approvals';
export { ApprovalRequestProps, SlackApprovalTask, SlackApprovalTaskProps } from './approval-task';
export {
  BatchWithApprovedRetries, BatchWithApprovedRetriesLambda, BatchWithApprovedRetriesLambdaProps,
  BatchWithApprovedRetriesProps, BatchWorkflowProps,
} from './batch';
export { acceptRoleDependsOn } from './lint';
export { ApproveOrEscalate, ApproveOrEscalateProps, PublishWithApproval, PublishWithApprovalProps } from './publish';
export { ShippedWorkflow, ShippedWorkflowProps, WorkflowWiring } from './workflow';
