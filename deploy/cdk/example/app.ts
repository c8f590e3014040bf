// An example app: the product (Approvals); publish-with-approval built
// from SlackApprovalTask, once in JSONPath and once in JSONata, the way
// workflow/definitions ships them; and the shipped batch workflow, with
// ECS workers and with a Lambda worker, deployed from its definition
// file. `npm run synth` writes its template to cdk.out/. Deploy it with
// the CDK CLI (`npx cdk deploy --app 'node dist/example/app.js' -c …`),
// giving the context values below.

import * as path from 'path';
import { App, CfnOutput, Duration, Stack, StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { acceptRoleDependsOn, Approvals, ApprovalsCode, BatchWithApprovedRetries, BatchWithApprovedRetriesLambda, SlackApprovalTask } from '../lib';

/** What the example is deployed with: CDK context values (-c name=value), with stand-ins for synth. */
interface ExampleContext {
  artifactsBucket: string; // where make package's zips were uploaded
  revision: string; // their keys: notifier/REV.zip, events/REV.zip, archive/REV.zip
  botImage: string;
  slackSecretArn: string;
  vpcId: string;
  availabilityZones: string[];
  subnetIds: string[];
  channel: string;
  approvers: string[];
  draftAgentFunctionArn: string;
  publishFunctionArn: string;
  definitions: string; // the shipped definitions: make package's dist/definitions, or workflow/definitions
  batchBucket: string;
  workerCluster: string;
  workerTaskDefinitionArn: string; // with its revision
  workerContainer: string;
  workerSubnetIds: string[];
  workerSecurityGroupIds: string[];
  workerRoleArns: string[]; // the task definition's task and execution roles
  processItemFunctionArn: string;
}

function context(app: App): ExampleContext {
  const get = (name: string, fallback: string) => String(app.node.tryGetContext(name) ?? fallback);
  const list = (name: string, fallback: string) => get(name, fallback).split(',');
  return {
    artifactsBucket: get('artifactsBucket', 'approvals-artifacts-123456789012'),
    revision: get('revision', '1a2b3c4'),
    botImage: get('botImage', '123456789012.dkr.ecr.us-east-1.amazonaws.com/approvals-bot:1a2b3c4'),
    slackSecretArn: get('slackSecretArn', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:approvals/slack-AbCdEf'),
    vpcId: get('vpcId', 'vpc-0123456789abcdef0'),
    availabilityZones: list('availabilityZones', 'us-east-1a,us-east-1b'),
    subnetIds: list('subnetIds', 'subnet-0123456789abcdef0,subnet-0fedcba9876543210'),
    channel: get('channel', 'C0PUBLISH'),
    approvers: list('approvers', 'U0ALICE,S0EDITORS'),
    draftAgentFunctionArn: get('draftAgentFunctionArn', 'arn:aws:lambda:us-east-1:123456789012:function:draft-agent'),
    publishFunctionArn: get('publishFunctionArn', 'arn:aws:lambda:us-east-1:123456789012:function:publish'),
    definitions: get('definitions', path.join(__dirname, '..', '..', '..', '..', 'workflow', 'definitions')),
    batchBucket: get('batchBucket', 'acme-batches-123456789012'),
    workerCluster: get('workerCluster', 'batch-workers'),
    workerTaskDefinitionArn: get('workerTaskDefinitionArn', 'arn:aws:ecs:us-east-1:123456789012:task-definition/batch-worker:1'),
    workerContainer: get('workerContainer', 'worker'),
    workerSubnetIds: list('workerSubnetIds', get('subnetIds', 'subnet-0123456789abcdef0,subnet-0fedcba9876543210')),
    workerSecurityGroupIds: list('workerSecurityGroupIds', 'sg-0123456789abcdef0'),
    workerRoleArns: list('workerRoleArns', 'arn:aws:iam::123456789012:role/batch-worker-task,arn:aws:iam::123456789012:role/batch-worker-execution'),
    processItemFunctionArn: get('processItemFunctionArn', 'arn:aws:lambda:us-east-1:123456789012:function:process-item'),
  };
}

/** The product, two publish-with-approval state machines and the batch workflow with ECS and with Lambda workers. */
export class ExampleStack extends Stack {
  constructor(scope: Construct, id: string, ctx: ExampleContext, props?: StackProps) {
    super(scope, id, props);
    const vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: ctx.vpcId,
      availabilityZones: ctx.availabilityZones,
      privateSubnetIds: ctx.subnetIds,
    });
    const approvals = new Approvals(this, 'Approvals', {
      code: ApprovalsCode.fromBucket(
        s3.Bucket.fromBucketName(this, 'Artifacts', ctx.artifactsBucket),
        `notifier/${ctx.revision}.zip`,
        `events/${ctx.revision}.zip`,
        `archive/${ctx.revision}.zip`,
      ),
      botImage: ecs.ContainerImage.fromRegistry(ctx.botImage),
      slackSecret: secretsmanager.Secret.fromSecretCompleteArn(this, 'SlackSecret', ctx.slackSecretArn),
      vpc,
    });
    const draftAgent = lambda.Function.fromFunctionArn(this, 'DraftAgent', ctx.draftAgentFunctionArn);
    const publisher = lambda.Function.fromFunctionArn(this, 'Publisher', ctx.publishFunctionArn);

    const jsonPath = this.publishWithApproval(approvals, draftAgent, publisher, ctx);
    const jsonata = this.publishWithApprovalJSONata(approvals, draftAgent, publisher, ctx);
    for (const machine of [jsonPath, jsonata]) {
      approvals.addStateMachine(machine);
      acceptRoleDependsOn(machine);
    }

    const [batch, batchLambda] = this.batchWithApprovedRetries(approvals, vpc, ctx);
    for (const workflow of [batch, batchLambda]) {
      approvals.addStateMachine(workflow.stateMachine);
    }

    new CfnOutput(this, 'NotifierFunctionArn', { value: approvals.notifier.functionArn });
    new CfnOutput(this, 'TableName', { value: approvals.table.tableName });
    new CfnOutput(this, 'PublishWithApprovalStateMachineArn', { value: jsonPath.stateMachineArn });
    new CfnOutput(this, 'PublishWithApprovalJSONataStateMachineArn', { value: jsonata.stateMachineArn });
    new CfnOutput(this, 'BatchWithApprovedRetriesStateMachineArn', { value: batch.stateMachine.stateMachineArn });
    new CfnOutput(this, 'BatchWithApprovedRetriesLambdaStateMachineArn', { value: batchLambda.stateMachine.stateMachineArn });
  }

  // The shipped batch workflow, as it is: workers on ECS Fargate, and a
  // Lambda worker, in the same bucket. Your workers' resources are
  // imported here; resources of the same app work as well.
  private batchWithApprovedRetries(approvals: Approvals, vpc: ec2.IVpc, ctx: ExampleContext): [BatchWithApprovedRetries, BatchWithApprovedRetriesLambda] {
    const common = {
      definitions: ctx.definitions,
      notifier: approvals.notifier,
      channel: ctx.channel,
      approvers: ctx.approvers,
      bucket: s3.Bucket.fromBucketName(this, 'BatchBucket', ctx.batchBucket),
    };
    const batch = new BatchWithApprovedRetries(this, 'BatchWithApprovedRetries', {
      ...common,
      cluster: ecs.Cluster.fromClusterAttributes(this, 'WorkerCluster', { clusterName: ctx.workerCluster, vpc }),
      taskDefinition: ecs.TaskDefinition.fromTaskDefinitionArn(this, 'WorkerTaskDefinition', ctx.workerTaskDefinitionArn),
      container: ctx.workerContainer,
      subnets: ctx.workerSubnetIds.map((id, i) => ec2.Subnet.fromSubnetId(this, `WorkerSubnet${i}`, id)),
      securityGroups: ctx.workerSecurityGroupIds.map((id, i) => ec2.SecurityGroup.fromSecurityGroupId(this, `WorkerSecurityGroup${i}`, id)),
      workerRoles: ctx.workerRoleArns.map((arn, i) => iam.Role.fromRoleArn(this, `WorkerRole${i}`, arn)),
    });
    const batchLambda = new BatchWithApprovedRetriesLambda(this, 'BatchWithApprovedRetriesLambda', {
      ...common,
      processItemFunction: lambda.Function.fromFunctionArn(this, 'ProcessItem', ctx.processItemFunctionArn),
    });
    return [batch, batchLambda];
  }

  // Draft, ask, then publish, revise or stop: JSONPath.
  private publishWithApproval(approvals: Approvals, draftAgent: lambda.IFunction, publisher: lambda.IFunction, ctx: ExampleContext): sfn.StateMachine {
    const draft = new tasks.LambdaInvoke(this, 'Draft', {
      lambdaFunction: draftAgent,
      payload: sfn.TaskInput.fromObject({ topic: sfn.JsonPath.stringAt('$.topic') }),
      resultSelector: { 'drafts.$': '$.Payload.drafts', 'summary.$': '$.Payload.summary' },
      resultPath: '$.draft',
    });
    const approve = new SlackApprovalTask(this, 'Approve', {
      notifier: approvals.notifier,
      channel: ctx.channel,
      approvers: ctx.approvers,
      requestedBy: sfn.JsonPath.stringAt('$.requestedBy'),
      title: sfn.JsonPath.format('Publish: {}', sfn.JsonPath.stringAt('$.topic')),
      summary: sfn.JsonPath.stringAt('$.draft.summary'),
      drafts: sfn.JsonPath.listAt('$.draft.drafts'),
      revisionPresets: ['Shorter', 'More detail', 'For non-engineers'],
      allowSkip: true,
      timeout: Duration.days(1),
      resultPath: '$.approval',
    });
    const publish = new tasks.LambdaInvoke(this, 'Publish', {
      lambdaFunction: publisher,
      payload: sfn.TaskInput.fromObject({
        topic: sfn.JsonPath.stringAt('$.topic'),
        text: sfn.JsonPath.stringAt('$.approval.selectedDraft'),
        approvalId: sfn.JsonPath.stringAt('$.approval.approvalId'),
        approvedBy: sfn.JsonPath.stringAt('$.approval.decidedBy'),
      }),
      resultPath: '$.published',
    });
    const revise = new tasks.LambdaInvoke(this, 'Revise', {
      lambdaFunction: draftAgent,
      payload: sfn.TaskInput.fromObject({
        topic: sfn.JsonPath.stringAt('$.topic'),
        feedback: sfn.JsonPath.stringAt('$.approval.feedback'),
        previousDrafts: sfn.JsonPath.listAt('$.draft.drafts'),
      }),
      resultSelector: { 'drafts.$': '$.Payload.drafts', 'summary.$': '$.Payload.summary' },
      resultPath: '$.draft',
    });
    approve.addCatch(new sfn.Pass(this, 'Rejected'), { errors: ['Rejected'], resultPath: '$.rejection' });
    approve.addCatch(new sfn.Fail(this, 'NotApproved', { error: 'NotApproved', cause: 'Nobody decided before the deadline.' }),
      { errors: ['States.Timeout', 'ApprovalExpired'] });
    const decided = new sfn.Choice(this, 'WhatWasDecided')
      .when(sfn.Condition.stringEquals('$.approval.action', 'approved'), publish)
      .when(sfn.Condition.stringEquals('$.approval.action', 'revise'), revise.next(approve))
      .otherwise(new sfn.Succeed(this, 'Skipped'));
    return new sfn.StateMachine(this, 'PublishWithApproval', {
      definitionBody: sfn.DefinitionBody.fromChainable(draft.next(approve).next(decided)),
    });
  }

  // The same in JSONata, with workflow variables.
  private publishWithApprovalJSONata(approvals: Approvals, draftAgent: lambda.IFunction, publisher: lambda.IFunction, ctx: ExampleContext): sfn.StateMachine {
    const draft = tasks.LambdaInvoke.jsonata(this, 'DraftJSONata', {
      lambdaFunction: draftAgent,
      payload: sfn.TaskInput.fromObject({ topic: '{% $states.input.topic %}' }),
      assign: { request: '{% $states.input %}', draft: '{% $states.result.Payload %}' },
    });
    const approve = SlackApprovalTask.jsonata(this, 'ApproveJSONata', {
      notifier: approvals.notifier,
      channel: ctx.channel,
      approvers: ctx.approvers,
      requestedBy: '{% $request.requestedBy %}',
      title: "{% 'Publish: ' & $request.topic %}",
      summary: '{% $draft.summary %}',
      drafts: '{% $draft.drafts %}',
      revisionPresets: ['Shorter', 'More detail', 'For non-engineers'],
      allowSkip: true,
      timeout: Duration.days(1),
      reminders: ['2h', '90%'],
      onDeadline: 'reject',
      assign: { approval: '{% $states.result %}' },
    });
    const publish = tasks.LambdaInvoke.jsonata(this, 'PublishJSONata', {
      lambdaFunction: publisher,
      payload: sfn.TaskInput.fromObject({
        topic: '{% $request.topic %}',
        text: '{% $approval.selectedDraft %}',
        approvalId: '{% $approval.approvalId %}',
        approvedBy: '{% $approval.decidedBy %}',
      }),
    });
    const revise = tasks.LambdaInvoke.jsonata(this, 'ReviseJSONata', {
      lambdaFunction: draftAgent,
      payload: sfn.TaskInput.fromObject({
        topic: '{% $request.topic %}',
        feedback: '{% $approval.feedback %}',
        previousDrafts: '{% $draft.drafts %}',
      }),
      assign: { draft: '{% $states.result.Payload %}' },
    });
    approve.addCatch(sfn.Pass.jsonata(this, 'RejectedJSONata', { outputs: { outcome: 'rejected', reason: '{% $states.input.Cause %}' } }),
      { errors: ['Rejected'] });
    const decided = sfn.Choice.jsonata(this, 'WhatWasDecidedJSONata')
      .when(sfn.Condition.jsonata("{% $approval.action = 'approved' %}"), publish)
      .when(sfn.Condition.jsonata("{% $approval.action = 'revise' %}"), revise.next(approve))
      .otherwise(sfn.Succeed.jsonata(this, 'SkippedJSONata'));
    return new sfn.StateMachine(this, 'PublishWithApprovalJSONata', {
      queryLanguage: sfn.QueryLanguage.JSONATA,
      definitionBody: sfn.DefinitionBody.fromChainable(draft.next(approve).next(decided)),
    });
  }
}

if (require.main === module) {
  const app = new App({ outdir: path.join(__dirname, '..', '..', 'cdk.out') });
  new ExampleStack(app, 'ApprovalsExample', context(app));
  app.synth();
}

export { context };
