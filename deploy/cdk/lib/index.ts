export { Approvals, ApprovalsCode, ApprovalsProps } from './approvals';
export { ApprovalRequestProps, SlackApprovalTask, SlackApprovalTaskProps } from './approval-task';
export { acceptRoleDependsOn } from './lint';
