import { Fn, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { quote } from './request';
import { functionArnOf, ShippedWorkflow, ShippedWorkflowProps } from './workflow';

/** What both batch workflows are deployed with. */
export interface BatchWorkflowProps extends ShippedWorkflowProps {
  /**
   * The bucket of yours, in this stack's account and Region, the items
   * are read from (the key an execution's itemsKey names) and the results
   * written to, under batch-results/ (the BatchBucket substitution). A
   * bucket encrypted with a KMS key also needs kms:Decrypt and
   * kms:GenerateDataKey for the role, which this construct does not add
   * (nor does the template): key.grantEncryptDecrypt(workflow.role).
   */
  readonly bucket: s3.IBucket;
}

/** Props of BatchWithApprovedRetries. */
export interface BatchWithApprovedRetriesProps extends BatchWorkflowProps {
  /** The ECS cluster the workers run in (WorkerCluster: its name). */
  readonly cluster: ecs.ICluster;
  /**
   * The workers' task definition, Fargate compatible (WorkerTaskDefinition:
   * its ARN with the revision). Imported with
   * ecs.TaskDefinition.fromTaskDefinitionArn, the ARN must name the
   * revision (…:task-definition/FAMILY:REVISION).
   */
  readonly taskDefinition: ecs.ITaskDefinition;
  /** The task definition's container that gets the item as JSON in ITEM (WorkerContainer). */
  readonly container: string;
  /**
   * The workers' subnets, 1 to 16 (WorkerSubnets). The workers get no
   * public IP: they need a NAT gateway or VPC endpoints to pull their
   * image and reach AWS.
   */
  readonly subnets: ec2.ISubnet[];
  /** The workers' security groups, 1 to 5 (WorkerSecurityGroups). */
  readonly securityGroups: ec2.ISecurityGroup[];
  /**
   * The roles the task definition names, which Step Functions passes to
   * ECS when it starts a worker (iam:PassRole; the template's
   * WorkerRoleArns). Default: the task definition's task role and
   * execution role, which an imported task definition must then have been
   * given (ecs.TaskDefinition.fromTaskDefinitionAttributes).
   */
  readonly workerRoles?: iam.IRole[];
}

/** Props of BatchWithApprovedRetriesLambda. */
export interface BatchWithApprovedRetriesLambdaProps extends BatchWorkflowProps {
  /**
   * The function that processes one item (ProcessItemFunctionArn): it
   * returns the item's result, or throws an error of type ItemFailed when
   * the item itself is wrong.
   */
  readonly processItemFunction: lambda.IFunction;
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const CLUSTER_NAME = /^[A-Za-z0-9_-]{1,255}$/;
const CONTAINER_NAME = /^[A-Za-z0-9_-]{1,255}$/;
const TASK_DEFINITION_ARN = /^arn:aws[a-z-]*:ecs:[a-z0-9-]+:[0-9]{12}:task-definition\/[A-Za-z0-9_-]{1,255}:[0-9]+$/;
const TASK_DEFINITION_FAMILY_ARN = /^arn:aws[a-z-]*:ecs:[a-z0-9-]+:[0-9]{12}:task-definition\/[A-Za-z0-9_-]{1,255}$/;
const SUBNET_ID = /^subnet-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;
const SECURITY_GROUP_ID = /^sg-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::[0-9]{12}:role\/[A-Za-z0-9+=,.@_/-]{1,512}$/;
// What awsvpc network configuration takes (ECS RunTask).
const MAX_SUBNETS = 16;
const MAX_SECURITY_GROUPS = 5;

/**
 * batch-with-approved-retries, whose workers are ECS tasks on Fargate:
 * items from S3, technical failures retried by Retry, business failures
 * (the worker exits 3) offered to people in Slack who approve retrying
 * only those, and after retryLimit a successful end reporting what failed
 * for good (docs: workflow/definitions/README.md).
 *
 * Its role allows exactly what the template's BatchWithApprovedRetriesRole
 * does: lambda:InvokeFunction on the notifier; s3:GetObject on the
 * bucket's objects; the ResultWriter's actions on batch-results/*;
 * ecs:RunTask on the task definition; ecs:StopTask and ecs:DescribeTasks
 * on the cluster's tasks; the EventBridge rule Step Functions manages for
 * runTask.sync; iam:PassRole on the worker roles; starting, describing and
 * stopping its own executions (the distributed Map's children); and log
 * delivery.
 *
 * Throws an Error naming the prop when a value is missing or malformed: a
 * task definition ARN without its revision, a subnet or security group ID
 * of the wrong shape, a container the task definition lacks, a task
 * definition Fargate cannot run.
 */
export class BatchWithApprovedRetries extends ShippedWorkflow {
  constructor(scope: Construct, id: string, props: BatchWithApprovedRetriesProps) {
    super(scope, id, 'BatchWithApprovedRetries', props, () => {
      const taskDefinition = props.taskDefinition;
      if (!taskDefinition) {
        throw new Error('taskDefinition is required');
      }
      return {
        file: 'batch-with-approved-retries.asl.json',
        values: {
          BatchBucket: bucketName(props.bucket),
          WorkerCluster: clusterName(props.cluster),
          WorkerTaskDefinition: taskDefinitionArn(taskDefinition),
          WorkerContainer: containerName(taskDefinition, props.container),
          WorkerSubnets: ids('subnets', (props.subnets ?? []).map((s) => s.subnetId), SUBNET_ID, 'a subnet ID (subnet- and 8 or 17 hex digits)', MAX_SUBNETS),
          WorkerSecurityGroups: ids('securityGroups', (props.securityGroups ?? []).map((g) => g.securityGroupId), SECURITY_GROUP_ID,
            'a security group ID (sg- and 8 or 17 hex digits)', MAX_SECURITY_GROUPS),
        },
        passRoles: workerRoleArns(taskDefinition, props.workerRoles),
      };
    });
  }
}

/**
 * batch-with-approved-retries.lambda: the same batch workflow for teams
 * without ECS, whose worker is a Lambda function.
 *
 * Its role allows exactly what the template's
 * BatchWithApprovedRetriesLambdaRole does: lambda:InvokeFunction on the
 * notifier and the function; the same S3 actions; starting, describing
 * and stopping its own executions; and log delivery.
 */
export class BatchWithApprovedRetriesLambda extends ShippedWorkflow {
  constructor(scope: Construct, id: string, props: BatchWithApprovedRetriesLambdaProps) {
    super(scope, id, 'BatchWithApprovedRetriesLambda', props, () => ({
      file: 'batch-with-approved-retries.lambda.asl.json',
      values: {
        BatchBucket: bucketName(props.bucket),
        ProcessItemFunctionArn: functionArnOf('processItemFunction', props.processItemFunction),
      },
    }));
  }
}

function bucketName(bucket: s3.IBucket | undefined): string {
  if (!bucket) {
    throw new Error('bucket is required');
  }
  const name = bucket.bucketName;
  if (!Token.isUnresolved(name) && (!BUCKET_NAME.test(name) || name.includes('..'))) {
    throw new Error(`bucket ${quote(name)} is not an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens)`);
  }
  return name;
}

function clusterName(cluster: ecs.ICluster | undefined): string {
  if (!cluster) {
    throw new Error('cluster is required');
  }
  const name = cluster.clusterName;
  if (!Token.isUnresolved(name) && !CLUSTER_NAME.test(name)) {
    throw new Error(`cluster ${quote(name)} is not an ECS cluster name (1 to 255 letters, digits, hyphens and underscores)`);
  }
  return name;
}

function taskDefinitionArn(taskDefinition: ecs.ITaskDefinition): string {
  const arn = taskDefinition.taskDefinitionArn;
  if (!Token.isUnresolved(arn)) {
    if (TASK_DEFINITION_FAMILY_ARN.test(arn)) {
      throw new Error(`taskDefinition ${JSON.stringify(arn)} has no revision: give …:task-definition/FAMILY:REVISION, the revision the role may run`);
    }
    if (!TASK_DEFINITION_ARN.test(arn)) {
      throw new Error(`taskDefinition ${JSON.stringify(arn)} is not a task definition ARN with its revision (arn:aws:ecs:REGION:ACCOUNT:task-definition/FAMILY:REVISION)`);
    }
  }
  if (taskDefinition instanceof ecs.TaskDefinition && !taskDefinition.isFargateCompatible) {
    throw new Error(`taskDefinition ${taskDefinition.node.path} is not Fargate compatible: the workflow starts its workers with LaunchType FARGATE`);
  }
  return arn;
}

function containerName(taskDefinition: ecs.ITaskDefinition, container: string): string {
  if (typeof container !== 'string' || container.trim() === '') {
    throw new Error('container is required: the task definition\'s container that gets the item in ITEM');
  }
  if (Token.isUnresolved(container)) {
    return container;
  }
  if (!CONTAINER_NAME.test(container)) {
    throw new Error(`container ${quote(container)} is not a container name (1 to 255 letters, digits, hyphens and underscores)`);
  }
  if (taskDefinition instanceof ecs.TaskDefinition && taskDefinition.findContainer(container) === undefined) {
    throw new Error(`container ${quote(container)} is not a container of taskDefinition ${taskDefinition.node.path}`);
  }
  return container;
}

// ids joins IDs with commas, as the definition splits them, after
// checking the literal ones.
function ids(key: string, values: string[], shape: RegExp, what: string, max: number): string {
  if (values.length === 0) {
    throw new Error(`${key} is required: at least one`);
  }
  if (values.length > max) {
    throw new Error(`${key} has ${values.length} entries; a task takes at most ${max}`);
  }
  const seen = new Set<string>();
  for (const v of values) {
    if (Token.isUnresolved(v)) {
      continue;
    }
    if (!shape.test(v)) {
      throw new Error(`${key} entry ${quote(v)} is not ${what}`);
    }
    if (seen.has(v)) {
      throw new Error(`${key} repeats ${quote(v)}`);
    }
    seen.add(v);
  }
  return values.some((v) => Token.isUnresolved(v)) ? Fn.join(',', values) : values.join(',');
}

// workerRoleArns are the roles to pass: those given, or the task
// definition's task and execution roles.
function workerRoleArns(taskDefinition: ecs.ITaskDefinition, given: iam.IRole[] | undefined): string[] {
  let roles = given;
  if (roles === undefined) {
    try {
      roles = [taskDefinition.taskRole, ...(taskDefinition.executionRole ? [taskDefinition.executionRole] : [])];
    } catch {
      throw new Error('workerRoles is required: the task definition is imported without its roles, so give the roles it names (its task role and execution role), which Step Functions passes to ECS');
    }
  }
  if (roles.length === 0) {
    throw new Error('workerRoles is required: the roles the task definition names (its task role and execution role), which Step Functions passes to ECS');
  }
  const arns: string[] = [];
  for (const role of roles) {
    const arn = role.roleArn;
    if (!Token.isUnresolved(arn) && !ROLE_ARN.test(arn)) {
      throw new Error(`workerRoles entry ${JSON.stringify(arn)} is not an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME)`);
    }
    if (!arns.includes(arn)) {
      arns.push(arn);
    }
  }
  return arns;
}
