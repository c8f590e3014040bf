import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CfnElement, CfnParameter, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { ApproveOrEscalate, BatchWithApprovedRetries, BatchWithApprovedRetriesLambda, BatchWithApprovedRetriesProps } from '../lib';
import { DEFINITIONS } from './cfn';

const NOTIFIER = 'arn:aws:lambda:us-east-1:123456789012:function:approvals-notifier';
const TASK_DEFINITION = 'arn:aws:ecs:us-east-1:123456789012:task-definition/invoice-worker:7';
const WORKER_ROLE = 'arn:aws:iam::123456789012:role/invoice-worker-task';

function setup(): Stack {
  return new Stack(undefined, 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
}

// props is a valid BatchWithApprovedRetries deployment of imported resources.
function props(stack: Stack): BatchWithApprovedRetriesProps {
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'] });
  return {
    definitions: DEFINITIONS,
    notifier: lambda.Function.fromFunctionArn(stack, 'Notifier', NOTIFIER),
    channel: 'C0BATCH',
    approvers: ['U0ALICE', 'S0OPS'],
    bucket: s3.Bucket.fromBucketName(stack, 'Bucket', 'acme-batches'),
    cluster: ecs.Cluster.fromClusterAttributes(stack, 'Cluster', { clusterName: 'batch', vpc }),
    taskDefinition: ecs.TaskDefinition.fromTaskDefinitionArn(stack, 'Worker', TASK_DEFINITION),
    container: 'worker',
    subnets: [ec2.Subnet.fromSubnetId(stack, 'Subnet', 'subnet-0a1b2c3d')],
    securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Group', 'sg-0e3f4a5b')],
    workerRoles: [iam.Role.fromRoleArn(stack, 'WorkerRole', WORKER_ROLE)],
  };
}

const subnets = (stack: Stack, ids: string[]) => ids.map((id, i) => ec2.Subnet.fromSubnetId(stack, `S${i}`, id));
const groups = (stack: Stack, ids: string[]) => ids.map((id, i) => ec2.SecurityGroup.fromSecurityGroupId(stack, `G${i}`, id));
const hex = (i: number) => i.toString(16).padStart(8, '0');

// Each bad value fails the synth with an error naming the construct and the prop.
describe('BatchWithApprovedRetries checks its props', () => {
  const cases: Array<[string, (stack: Stack) => Partial<BatchWithApprovedRetriesProps>, RegExp]> = [
    ['a task definition ARN without revision',
      (s) => ({ taskDefinition: ecs.TaskDefinition.fromTaskDefinitionArn(s, 'Family', 'arn:aws:ecs:us-east-1:123456789012:task-definition/invoice-worker') }),
      /^BatchWithApprovedRetries Batch: taskDefinition "arn:aws:ecs:us-east-1:123456789012:task-definition\/invoice-worker" has no revision/],
    ['a task definition that is no ARN', (s) => ({ taskDefinition: ecs.TaskDefinition.fromTaskDefinitionArn(s, 'Name', 'arn:aws:ecs:us-east-1:123456789012:service/x') }),
      /taskDefinition "arn:aws:ecs:us-east-1:123456789012:service\/x" is not a task definition ARN with its revision/],
    ['a task definition Fargate cannot run', (s) => {
      const td = new ecs.Ec2TaskDefinition(s, 'Ec2Worker');
      td.addContainer('worker', { image: ecs.ContainerImage.fromRegistry('worker'), memoryLimitMiB: 512 });
      return { taskDefinition: td };
    }, /taskDefinition Test\/Ec2Worker is not Fargate compatible/],
    ['a container the task definition lacks', (s) => {
      const td = new ecs.FargateTaskDefinition(s, 'FargateWorker');
      td.addContainer('app', { image: ecs.ContainerImage.fromRegistry('worker') });
      return { taskDefinition: td };
    }, /container "worker" is not a container of taskDefinition Test\/FargateWorker/],
    ['no container', () => ({ container: '' }), /container is required/],
    ['a container name with a space', () => ({ container: 'the worker' }), /container "the worker" is not a container name/],
    ['a container name that would end its JSON string', () => ({ container: 'worker"' }), /container "worker\\"" is not a container name/],
    ['no subnets', () => ({ subnets: [] }), /subnets is required/],
    ['a subnet ID of the wrong shape', (s) => ({ subnets: subnets(s, ['subnet-xyz']) }), /subnets entry "subnet-xyz" is not a subnet ID/],
    ['a subnet name', (s) => ({ subnets: subnets(s, ['private-a']) }), /subnets entry "private-a" is not a subnet ID/],
    ['a repeated subnet', (s) => ({ subnets: subnets(s, ['subnet-0a1b2c3d', 'subnet-0a1b2c3d']) }), /subnets repeats "subnet-0a1b2c3d"/],
    ['17 subnets', (s) => ({ subnets: subnets(s, Array.from({ length: 17 }, (_, i) => `subnet-${hex(i)}`)) }), /subnets has 17 entries; a task takes at most 16/],
    ['no security groups', () => ({ securityGroups: [] }), /securityGroups is required/],
    ['a security group ID of the wrong shape', (s) => ({ securityGroups: groups(s, ['sg-12']) }), /securityGroups entry "sg-12" is not a security group ID/],
    ['a security group name', (s) => ({ securityGroups: groups(s, ['default']) }), /securityGroups entry "default" is not a security group ID/],
    ['six security groups', (s) => ({ securityGroups: groups(s, Array.from({ length: 6 }, (_, i) => `sg-${hex(i)}`)) }), /securityGroups has 6 entries; a task takes at most 5/],
    ['an imported task definition without roles', () => ({ workerRoles: undefined }), /workerRoles is required: the task definition is imported without its roles/],
    ['no worker roles', () => ({ workerRoles: [] }), /workerRoles is required/],
    ['a worker role that is a user', (s) => ({ workerRoles: [iam.Role.fromRoleArn(s, 'User', 'arn:aws:iam::123456789012:user/alice')] }), /workerRoles entry "arn:aws:iam::123456789012:user\/alice" is not an IAM role ARN/],
    ['a bucket name in capitals', (s) => ({ bucket: s3.Bucket.fromBucketName(s, 'Caps', 'Acme_Batches') }), /bucket "Acme_Batches" is not an S3 bucket name/],
    ['a cluster name with a slash', (s) => ({ cluster: ecs.Cluster.fromClusterAttributes(s, 'Slash', { clusterName: 'team/batch', vpc: ec2.Vpc.fromVpcAttributes(s, 'V2', { vpcId: 'vpc-0123456789abcdef1', availabilityZones: ['us-east-1a'] }) }) }), /cluster "team\/batch" is not an ECS cluster name/],
    ['no channel', () => ({ channel: '' }), /channel is required/],
    ['a channel name', () => ({ channel: '#batches' }), /channel "#batches" is not a Slack channel ID/],
    ['no approvers', () => ({ approvers: [] }), /approvers is required/],
    ['an approver that is a name', () => ({ approvers: ['alice'] }), /approvers entry "alice" is neither a user ID/],
    ['approvers from the input', () => ({ approvers: ['{% $states.input.approvers %}'] }), /approvers holds "\{% \$states.input.approvers %\}", a path or expression/],
    ['51 approvers', () => ({ approvers: Array.from({ length: 51 }, (_, i) => `U0${i}XX`) }), /approvers has 51 entries; at most 50/],
    ['a notifier ARN that is a layer', (s) => ({ notifier: lambda.Function.fromFunctionArn(s, 'Layer', 'arn:aws:lambda:us-east-1:123456789012:layer:x') }), /notifier's ARN "arn:aws:lambda:us-east-1:123456789012:layer:x" is not a Lambda function ARN/],
    ['a state machine name with a space', () => ({ stateMachineName: 'nightly invoices' }), /stateMachineName "nightly invoices" must be 1 to 80 letters/],
    ['a state machine name of 81 characters', () => ({ stateMachineName: 'x'.repeat(81) }), /stateMachineName .* must be 1 to 80/],
    ['no definitions', () => ({ definitions: '' }), /definitions is required/],
    ['definitions where there are none', () => ({ definitions: path.join(os.tmpdir(), 'no-such-definitions') }), /definitions: cannot read .*batch-with-approved-retries\.asl\.json \(ENOENT\)/],
  ];
  test.each(cases)('%s', (_name, change, want) => {
    const stack = setup();
    expect(() => new BatchWithApprovedRetries(stack, 'Batch', { ...props(stack), ...change(stack) })).toThrow(want);
    // Nothing was added to the stack.
    expect(stack.node.tryFindChild('Batch')).toBeUndefined();
  });

  test('accepts the largest network a task takes and IDs of 17 hex digits', () => {
    const stack = setup();
    expect(() => new BatchWithApprovedRetries(stack, 'Batch', {
      ...props(stack),
      subnets: subnets(stack, Array.from({ length: 16 }, (_, i) => `subnet-${hex(i)}${hex(i)}a`)),
      securityGroups: groups(stack, Array.from({ length: 5 }, (_, i) => `sg-${hex(i)}`)),
    })).not.toThrow();
  });
});

describe('the other workflows check their own props', () => {
  test('BatchWithApprovedRetriesLambda needs its function', () => {
    const stack = setup();
    const { definitions, notifier, channel, approvers, bucket } = props(stack);
    expect(() => new BatchWithApprovedRetriesLambda(stack, 'Batch', { definitions, notifier, channel, approvers, bucket, processItemFunction: undefined as any }))
      .toThrow(/^BatchWithApprovedRetriesLambda Batch: processItemFunction is required/);
  });

  test('ApproveOrEscalate needs whom to escalate to', () => {
    const stack = setup();
    const { definitions, notifier, channel, approvers } = props(stack);
    const f = lambda.Function.fromFunctionArn(stack, 'F', 'arn:aws:lambda:us-east-1:123456789012:function:f');
    expect(() => new ApproveOrEscalate(stack, 'Escalate', {
      definitions, notifier, channel, approvers, draftAgentFunction: f, publishFunction: f, fileRejectionFunction: f, escalationApprovers: [],
    })).toThrow(/^ApproveOrEscalate Escalate: escalationApprovers is required/);
  });
});

describe('BatchWithApprovedRetries with resources of the same app', () => {
  test('takes their tokens, and passes the task definition\'s task and execution roles', () => {
    const stack = setup();
    const imported = props(stack);
    const vpc = new ec2.Vpc(stack, 'AppVpc', { maxAzs: 2, natGateways: 1 });
    const taskDefinition = new ecs.FargateTaskDefinition(stack, 'AppWorker');
    taskDefinition.addContainer('worker', {
      image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:1.37'),
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: 'worker' }),
    });
    const batch = new BatchWithApprovedRetries(stack, 'Batch', {
      ...imported,
      bucket: new s3.Bucket(stack, 'Items'),
      cluster: new ecs.Cluster(stack, 'AppCluster', { vpc }),
      taskDefinition,
      subnets: vpc.privateSubnets,
      securityGroups: [new ec2.SecurityGroup(stack, 'WorkerGroup', { vpc })],
      workerRoles: undefined,
      approvers: new CfnParameter(stack, 'Approvers', { type: 'CommaDelimitedList' }).valueAsList,
    });
    const template = Template.fromStack(stack);
    const id = (c: any) => stack.getLogicalId(c.node.defaultChild as CfnElement);
    const machine = template.findResources('AWS::StepFunctions::StateMachine')[id(batch.stateMachine)];
    const subs = machine.Properties.DefinitionSubstitutions;
    expect(subs.Approvers).toEqual({ 'Fn::Join': [',', { Ref: 'Approvers' }] });
    expect(subs.BatchBucket).toEqual({ Ref: id(stack.node.findChild('Items')) });
    expect(subs.WorkerTaskDefinition).toEqual({ Ref: id(taskDefinition) });
    expect(subs.WorkerSubnets['Fn::Join'][0]).toBe(',');
    expect(subs.WorkerSubnets['Fn::Join'][1]).toHaveLength(2);
    const passed = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((p: any) => p.Properties.PolicyDocument.Statement)
      .filter((s: any) => s.Action === 'iam:PassRole')
      .flatMap((s: any) => [s.Resource].flat());
    expect(passed).toEqual([
      { 'Fn::GetAtt': [id(taskDefinition.taskRole), 'Arn'] },
      { 'Fn::GetAtt': [id(taskDefinition.executionRole), 'Arn'] },
    ]);
  });
});

// A definition that is not the one the construct was written for, or
// calls what the construct has no rule for, fails the synth.
describe('the definition is checked before it is deployed', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'definitions-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const FILE = 'batch-with-approved-retries.lambda.asl.json';
  const shipped = () => JSON.parse(fs.readFileSync(path.join(DEFINITIONS, FILE), 'utf8'));
  const write = (text: string) => fs.writeFileSync(path.join(dir, FILE), text);
  const deploy = () => {
    const stack = setup();
    const { notifier, channel, approvers, bucket } = props(stack);
    const processItemFunction = lambda.Function.fromFunctionArn(stack, 'P', 'arn:aws:lambda:us-east-1:123456789012:function:process-item');
    new BatchWithApprovedRetriesLambda(stack, 'Batch', { definitions: dir, notifier, channel, approvers, bucket, processItemFunction });
    return stack;
  };
  const work = (doc: any) => doc.States.Process.ItemProcessor.States.Work;
  const cases: Array<[string, (doc: any) => string | void, RegExp]> = [
    ['a placeholder the construct does not fill', (d) => {
      d.States.Process.ResultWriter.Arguments.Prefix = '${ResultsPrefix}';
    }, /batch-with-approved-retries\.lambda\.asl\.json has \$\{ResultsPrefix\}, which this construct does not fill/],
    ['a placeholder the construct fills but the file lacks', (d) => {
      work(d).Arguments.FunctionName = 'arn:aws:lambda:us-east-1:123456789012:function:p';
    }, /has no \$\{ProcessItemFunctionArn\}: is it the shipped definition\?/],
    ['a Task this library has no rule for', (d) => {
      d.States.ReadManifest.Resource = 'arn:aws:states:::sqs:sendMessage';
    }, /state ReadManifest calls arn:aws:states:::sqs:sendMessage, for which this library has no IAM rule/],
    ['an item reader this library has no rule for', (d) => {
      d.States.Process.ItemReader.Resource = 'arn:aws:states:::dynamodb:scan';
    }, /state Process reads items with arn:aws:states:::dynamodb:scan, for which this library has no IAM rule/],
    ['a bucket computed at run time', (d) => {
      d.States.ReadManifest.Arguments.Bucket = '{% $request.bucket %}';
    }, /state ReadManifest: Bucket "\{% \$request\.bucket %\}" is not written out, so its permission cannot be derived/],
    ['a function that is no ARN', (d) => {
      work(d).Arguments.FunctionName = 'process-item';
      work(d).Comment = 'Runs ${ProcessItemFunctionArn}';
    }, /state Work invokes "process-item", not a function ARN/],
    ['no JSON', () => '{"States": ', /is not JSON/],
    ['no States', () => '{"StartAt": "A"}', /is not a state machine definition \(it has no States\)/],
  ];
  test.each(cases)('%s', (_name, edit, want) => {
    const doc = shipped();
    const text = edit(doc) ?? JSON.stringify(doc, null, 2);
    write(text);
    expect(() => deploy()).toThrow(want);
  });

  test('the shipped file, written back, deploys', () => {
    write(JSON.stringify(shipped(), null, 2));
    expect(() => deploy()).not.toThrow();
  });

  test('a list reader is allowed to list the bucket, not to read it', () => {
    const doc = shipped();
    doc.States.Process.ItemReader = { Resource: 'arn:aws:states:::s3:listObjectsV2', Arguments: { Bucket: '${BatchBucket}', Prefix: 'items/' } };
    write(JSON.stringify(doc, null, 2));
    const actions = Object.values(Template.fromStack(deploy()).findResources('AWS::IAM::Policy'))
      .flatMap((p: any) => p.Properties.PolicyDocument.Statement)
      .map((s: any) => `${[s.Action].flat().join(',')} on ${JSON.stringify(s.Resource)}`);
    expect(actions).toContain('s3:ListBucket on {"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},":s3:::acme-batches"]]}');
    // The manifest is still read with aws-sdk:s3:getObject.
    expect(actions).toContain('s3:GetObject on {"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},":s3:::acme-batches/*"]]}');
  });
});
