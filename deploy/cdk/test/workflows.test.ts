import * as path from 'path';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { ApproveOrEscalate, BatchWithApprovedRetries, BatchWithApprovedRetriesLambda, PublishWithApproval, ShippedWorkflow } from '../lib';
import { DEFINITIONS, Env, evaluate, permissions, templateResource } from './cfn';

const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const STACK = 'approvals';
const NOTIFIER = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:approvals-notifier`;
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/0b7e8e1c-4a0d-4f5e-9b7a-3c2d1e0f9a8b`;

// One deployment's values, given to the template as parameters and to the
// constructs as props.
const VALUES = {
  Channel: 'C0PUBLISH',
  Approvers: 'U0ALICE,S0EDITORS',
  EscalationApprovers: 'S0LEADS',
  DraftAgentFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:draft-agent`,
  PublishFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:publish`,
  FileRejectionFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:file-rejection`,
  ProcessItemFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:process-item:live`,
  BatchBucket: 'acme-batches',
  WorkerCluster: 'batch',
  WorkerTaskDefinitionArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task-definition/invoice-worker:7`,
  WorkerContainer: 'worker',
  WorkerSubnets: 'subnet-0a1b2c3d,subnet-0c2d3e4f5a6b7c8d9',
  WorkerSecurityGroups: 'sg-0e3f4a5b',
  WorkerRoleArns: [`arn:aws:iam::${ACCOUNT}:role/invoice-worker-task`, `arn:aws:iam::${ACCOUNT}:role/invoice-worker-execution`],
  NotifierCodeBucket: 'approvals-artifacts',
  DefinitionsPrefix: 'definitions/1a2b3c4/',
  WorkflowLogLevel: 'ERROR',
  LogRetentionDays: 30,
  KmsKeyArn: KEY,
};

const PSEUDO = { 'AWS::Partition': 'aws', 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT, 'AWS::StackName': STACK };

function stackFor(): Stack {
  return new Stack(new App(), STACK, { env: { account: ACCOUNT, region: REGION } });
}

function fn(stack: Stack, id: string, arn: string): lambda.IFunction {
  return lambda.Function.fromFunctionArn(stack, id, arn);
}

// common are the props every workflow takes, for VALUES.
function common(stack: Stack, name: string, change: Partial<Record<string, unknown>> = {}) {
  return {
    definitions: DEFINITIONS,
    notifier: fn(stack, 'Notifier', NOTIFIER),
    channel: VALUES.Channel,
    approvers: VALUES.Approvers.split(','),
    stateMachineName: `${STACK}-${name}`,
    ...change,
  };
}

function ecsWorkers(stack: Stack) {
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', { vpcId: 'vpc-0123456789abcdef0', availabilityZones: [`${REGION}a`] });
  return {
    bucket: s3.Bucket.fromBucketName(stack, 'Bucket', VALUES.BatchBucket),
    cluster: ecs.Cluster.fromClusterAttributes(stack, 'Cluster', { clusterName: VALUES.WorkerCluster, vpc }),
    taskDefinition: ecs.TaskDefinition.fromTaskDefinitionArn(stack, 'Worker', VALUES.WorkerTaskDefinitionArn),
    container: VALUES.WorkerContainer,
    subnets: VALUES.WorkerSubnets.split(',').map((id, i) => ec2.Subnet.fromSubnetId(stack, `Subnet${i}`, id)),
    securityGroups: VALUES.WorkerSecurityGroups.split(',').map((id, i) => ec2.SecurityGroup.fromSecurityGroupId(stack, `Group${i}`, id)),
    workerRoles: VALUES.WorkerRoleArns.map((arn, i) => iam.Role.fromRoleArn(stack, `WorkerRole${i}`, arn)),
  };
}

interface Case {
  readonly name: string; // the template's resources are NAME{Role,StateMachine,LogGroup}
  readonly file: string;
  readonly suffix: string; // the template's state machine name after the stack name
  readonly build: (stack: Stack, change?: Partial<Record<string, unknown>>) => ShippedWorkflow;
}

const CASES: Case[] = [
  {
    name: 'BatchWithApprovedRetries', file: 'batch-with-approved-retries.asl.json', suffix: 'batch-with-approved-retries',
    build: (stack, change) => new BatchWithApprovedRetries(stack, 'Workflow', { ...common(stack, 'batch-with-approved-retries', change), ...ecsWorkers(stack) }),
  },
  {
    name: 'BatchWithApprovedRetriesLambda', file: 'batch-with-approved-retries.lambda.asl.json', suffix: 'batch-with-approved-retries-lambda',
    build: (stack, change) => new BatchWithApprovedRetriesLambda(stack, 'Workflow', {
      ...common(stack, 'batch-with-approved-retries-lambda', change),
      bucket: s3.Bucket.fromBucketName(stack, 'Bucket', VALUES.BatchBucket),
      processItemFunction: fn(stack, 'ProcessItem', VALUES.ProcessItemFunctionArn),
    }),
  },
  {
    name: 'PublishWithApproval', file: 'publish-with-approval.asl.json', suffix: 'publish-with-approval',
    build: (stack, change) => new PublishWithApproval(stack, 'Workflow', {
      ...common(stack, 'publish-with-approval', change),
      draftAgentFunction: fn(stack, 'Draft', VALUES.DraftAgentFunctionArn),
      publishFunction: fn(stack, 'Publish', VALUES.PublishFunctionArn),
    }),
  },
  {
    name: 'PublishWithApprovalJSONata', file: 'publish-with-approval.jsonata.asl.json', suffix: 'publish-with-approval-jsonata',
    build: (stack, change) => new PublishWithApproval(stack, 'Workflow', {
      ...common(stack, 'publish-with-approval-jsonata', change),
      draftAgentFunction: fn(stack, 'Draft', VALUES.DraftAgentFunctionArn),
      publishFunction: fn(stack, 'Publish', VALUES.PublishFunctionArn),
      jsonata: true,
    }),
  },
  {
    name: 'ApproveOrEscalate', file: 'approve-or-escalate.asl.json', suffix: 'approve-or-escalate',
    build: (stack, change) => new ApproveOrEscalate(stack, 'Workflow', {
      ...common(stack, 'approve-or-escalate', change),
      draftAgentFunction: fn(stack, 'Draft', VALUES.DraftAgentFunctionArn),
      publishFunction: fn(stack, 'Publish', VALUES.PublishFunctionArn),
      fileRejectionFunction: fn(stack, 'FileRejection', VALUES.FileRejectionFunctionArn),
      escalationApprovers: VALUES.EscalationApprovers.split(','),
    }),
  },
];

// The template's resources of a workflow and the construct's, with what
// evaluates each side: the same values, and the log group's ARN as
// LOG_GROUP on both.
interface Sides {
  readonly template: { role: any; machine: any; logGroup: any; env: Env };
  readonly cdk: { role: any; policies: any[]; machine: any; logGroup: any; env: Env };
  readonly workflow: ShippedWorkflow;
}

function sides(c: Case, opts: { key?: boolean; executionData?: boolean } = {}): Sides {
  const stack = stackFor();
  const change: Record<string, unknown> = {};
  if (opts.key) {
    change.encryptionKey = kms.Key.fromKeyArn(stack, 'Key', KEY);
  }
  if (opts.executionData) {
    change.includeExecutionData = true;
  }
  const workflow = c.build(stack, change);
  const json = Template.fromStack(stack).toJSON();
  const id = (construct: any) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const roleId = id(workflow.role);
  const policies = Object.values(json.Resources as Record<string, any>)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .map((r) => r.Properties.PolicyDocument);
  return {
    workflow,
    template: {
      role: templateResource(`${c.name}Role`),
      machine: templateResource(`${c.name}StateMachine`),
      logGroup: templateResource(`${c.name}LogGroup`),
      env: {
        refs: { ...PSEUDO, ...VALUES, 'NotifierFunction.Arn': NOTIFIER, [`${c.name}LogGroup.Arn`]: 'LOG_GROUP', [`${c.name}Role.Arn`]: 'ROLE' },
        conditions: { HasKmsKey: !!opts.key, LogExecutionData: !!opts.executionData },
      },
    },
    cdk: {
      role: json.Resources[roleId],
      policies,
      machine: json.Resources[id(workflow.stateMachine)],
      logGroup: json.Resources[id(workflow.logGroup)],
      env: { refs: { ...PSEUDO, [`${id(workflow.logGroup)}.Arn`]: 'LOG_GROUP', [`${roleId}.Arn`]: 'ROLE' } },
    },
  };
}

describe.each(CASES)('$name deploys what the template deploys', (c) => {
  test('its role allows exactly the template\'s statements, and trusts the same principal', () => {
    const s = sides(c);
    const want = permissions(s.template.role.Properties.Policies.map((p: any) => p.PolicyDocument), s.template.env);
    expect(want.length).toBeGreaterThan(0);
    expect(permissions(s.cdk.policies, s.cdk.env)).toEqual(want);
    expect(evaluate(s.cdk.role.Properties.AssumeRolePolicyDocument.Statement, s.cdk.env))
      .toEqual(evaluate(s.template.role.Properties.AssumeRolePolicyDocument.Statement, s.template.env));
    expect(s.cdk.role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(s.cdk.role.Properties.Policies).toBeUndefined();
  });

  test('its state machine: the same file, substitutions, name, type and logging', () => {
    const s = sides(c);
    const cdk = evaluate(s.cdk.machine.Properties, s.cdk.env);
    const tmpl = evaluate(s.template.machine.Properties, s.template.env);
    expect(tmpl.DefinitionS3Location.Key).toBe(VALUES.DefinitionsPrefix + c.file);
    expect(s.workflow.definition.file).toBe(c.file);
    expect(s.workflow.definition.path).toBe(path.join(DEFINITIONS, c.file));
    expect(cdk.DefinitionS3Location.Key).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(cdk.DefinitionString).toBeUndefined();
    expect(cdk.DefinitionSubstitutions).toEqual(tmpl.DefinitionSubstitutions);
    expect(cdk.StateMachineName).toBe(`${STACK}-${c.suffix}`);
    expect(cdk.StateMachineName).toBe(tmpl.StateMachineName);
    expect(cdk.StateMachineType).toBe('STANDARD');
    expect(cdk.StateMachineType).toBe(tmpl.StateMachineType);
    expect(cdk.LoggingConfiguration).toEqual(tmpl.LoggingConfiguration);
    expect(cdk.RoleArn).toBe('ROLE');
  });

  test('its log group: the same name and retention, and with a key, that key; the role is unchanged', () => {
    for (const key of [false, true]) {
      const s = sides(c, { key });
      expect(evaluate(s.cdk.logGroup.Properties, s.cdk.env)).toEqual(evaluate(s.template.logGroup.Properties, s.template.env));
      expect(permissions(s.cdk.policies, s.cdk.env))
        .toEqual(permissions(s.template.role.Properties.Policies.map((p: any) => p.PolicyDocument), s.template.env));
    }
  });

  test('with execution data logged, as the template with WorkflowLogExecutionData', () => {
    const s = sides(c, { executionData: true });
    const cdk = evaluate(s.cdk.machine.Properties.LoggingConfiguration, s.cdk.env);
    expect(cdk.IncludeExecutionData).toBe(true);
    expect(cdk).toEqual(evaluate(s.template.machine.Properties.LoggingConfiguration, s.template.env));
  });
});

test('every shipped definition has a construct', () => {
  const fs = require('fs') as typeof import('fs');
  const shipped = fs.readdirSync(DEFINITIONS).filter((f: string) => f.endsWith('.asl.json')).sort();
  expect(CASES.map((c) => c.file).sort()).toEqual(shipped);
});

test('the default state machine name is unique in the app and names the log group', () => {
  const stack = stackFor();
  const a = new BatchWithApprovedRetriesLambda(stack, 'NightlyInvoices', {
    definitions: DEFINITIONS,
    notifier: fn(stack, 'Notifier', NOTIFIER),
    channel: 'C0PUBLISH',
    approvers: ['U0ALICE'],
    bucket: s3.Bucket.fromBucketName(stack, 'Bucket', 'acme-batches'),
    processItemFunction: fn(stack, 'ProcessItem', VALUES.ProcessItemFunctionArn),
  });
  const name = stack.resolve((a.stateMachine.node.defaultChild as sfn.CfnStateMachine).stateMachineName);
  expect(name).toMatch(/^approvals-NightlyInvoices-[0-9A-F]{8}$/);
  expect(stack.resolve((a.logGroup.node.defaultChild as any).logGroupName)).toBe(`/aws/vendedlogs/states/${name}`);
});
