import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { approversValue, functionArnOf, ShippedWorkflow, ShippedWorkflowProps } from './workflow';

/** Props of PublishWithApproval. */
export interface PublishWithApprovalProps extends ShippedWorkflowProps {
  /** The function that drafts posts (DraftAgentFunctionArn). */
  readonly draftAgentFunction: lambda.IFunction;
  /** The function that publishes the approved draft (PublishFunctionArn). */
  readonly publishFunction: lambda.IFunction;
  /** Deploy publish-with-approval.jsonata.asl.json, the same workflow in JSONata (default false: the JSONPath one). */
  readonly jsonata?: boolean;
}

/** Props of ApproveOrEscalate. */
export interface ApproveOrEscalateProps extends ShippedWorkflowProps {
  /** The function that drafts posts (DraftAgentFunctionArn). */
  readonly draftAgentFunction: lambda.IFunction;
  /** The function that publishes the approved draft (PublishFunctionArn). */
  readonly publishFunction: lambda.IFunction;
  /** The function that records a rejection (FileRejectionFunctionArn). */
  readonly fileRejectionFunction: lambda.IFunction;
  /** Users and user groups added to the approvers, and mentioned, halfway to the deadline (EscalationApprovers). */
  readonly escalationApprovers: string[];
}

/**
 * publish-with-approval (or, with jsonata, its JSONata version): draft,
 * ask in Slack, then publish, revise or stop. Its role allows
 * lambda:InvokeFunction on the notifier and the two functions, and log
 * delivery, as the template's PublishWithApprovalRole does.
 */
export class PublishWithApproval extends ShippedWorkflow {
  constructor(scope: Construct, id: string, props: PublishWithApprovalProps) {
    super(scope, id, 'PublishWithApproval', props, () => ({
      file: props.jsonata ? 'publish-with-approval.jsonata.asl.json' : 'publish-with-approval.asl.json',
      values: {
        DraftAgentFunctionArn: functionArnOf('draftAgentFunction', props.draftAgentFunction),
        PublishFunctionArn: functionArnOf('publishFunction', props.publishFunction),
      },
    }));
  }
}

/**
 * approve-or-escalate: publish-with-approval that escalates halfway to the
 * deadline and files rejections. Its role allows lambda:InvokeFunction on
 * the notifier and the three functions, and log delivery, as the
 * template's ApproveOrEscalateRole does.
 */
export class ApproveOrEscalate extends ShippedWorkflow {
  constructor(scope: Construct, id: string, props: ApproveOrEscalateProps) {
    super(scope, id, 'ApproveOrEscalate', props, () => ({
      file: 'approve-or-escalate.asl.json',
      values: {
        EscalationApprovers: approversValue('escalationApprovers', props.escalationApprovers),
        DraftAgentFunctionArn: functionArnOf('draftAgentFunction', props.draftAgentFunction),
        PublishFunctionArn: functionArnOf('publishFunction', props.publishFunction),
        FileRejectionFunctionArn: functionArnOf('fileRejectionFunction', props.fileRejectionFunction),
      },
    }));
  }
}
