// The Approvals construct in a stack of its own, as the tests build it,
// and its roles' statements read back from the synthesised template.

import { CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { IConstruct } from 'constructs';
import { Approvals, ApprovalsCode, ApprovalsProps } from '../lib';

export const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:approvals/slack-AbCdEf';
export const KEY = 'arn:aws:kms:us-east-1:123456789012:key/0b7e8e1c-4a0d-4f5e-9b7a-3c2d1e0f9a8b';

/** A stack with Approvals of imported resources; change adds or replaces props. */
export function build(change: (stack: Stack) => Partial<ApprovalsProps> = () => ({})): { stack: Stack; approvals: Approvals } {
  const stack = new Stack(undefined, 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
  const approvals = new Approvals(stack, 'Approvals', {
    code: ApprovalsCode.fromBucket(s3.Bucket.fromBucketName(stack, 'Artifacts', 'approvals-artifacts'), 'notifier/1.zip', 'events/1.zip', 'archive/1.zip'),
    botImage: ecs.ContainerImage.fromRegistry('123456789012.dkr.ecr.us-east-1.amazonaws.com/approvals-bot:1'),
    slackSecret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Secret', SECRET),
    vpc: ec2.Vpc.fromVpcAttributes(stack, 'Vpc', { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'], privateSubnetIds: ['subnet-0123456789abcdef0'] }),
    ...change(stack),
  });
  return { stack, approvals };
}

/**
 * A role's policy statements as "action on resource", resources resolved
 * to JSON, sorted. Every statement must be an Allow without a condition.
 */
export function statements(template: Template, roleLogicalIdPrefix: string): string[] {
  const out: string[] = [];
  for (const [, policy] of Object.entries(template.findResources('AWS::IAM::Policy'))) {
    const roles = JSON.stringify((policy as any).Properties.Roles);
    if (!roles.includes(roleLogicalIdPrefix)) {
      continue;
    }
    for (const s of (policy as any).Properties.PolicyDocument.Statement) {
      expect(s.Effect).toBe('Allow');
      expect(s.Condition).toBeUndefined();
      for (const a of [s.Action].flat()) {
        for (const r of [s.Resource].flat()) {
          out.push(`${a} on ${typeof r === 'string' ? r : JSON.stringify(r)}`);
        }
      }
    }
  }
  return out.sort();
}

/** The logical ID of a construct's CloudFormation resource. */
export function logicalId(stack: Stack, construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

/** How a statement names the construct's resource: its GetAtt Arn, as JSON. */
export function arnOf(stack: Stack, construct: IConstruct): string {
  return JSON.stringify({ 'Fn::GetAtt': [logicalId(stack, construct), 'Arn'] });
}
