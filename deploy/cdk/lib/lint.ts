import { CfnResource } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';

/**
 * Tells cfn-lint, on the resource only and with the reason beside it, to
 * accept the DependsOn the AWS CDK gives a Lambda function or a state
 * machine on its role (W3005): CDK makes the resource depend on the role
 * construct, so that its policy exists before the resource is created,
 * and the role part of that is also implied by the Role property's
 * GetAtt. Nothing else is ignored.
 */
export function acceptRoleDependsOn(construct: IConstruct): void {
  const resource = construct.node.defaultChild;
  if (!CfnResource.isCfnResource(resource)) {
    throw new Error(`${construct.node.path} has no CloudFormation resource`);
  }
  resource.addMetadata('cfn-lint', {
    config: { ignore_checks: ['W3005'] },
    reason: 'W3005: the AWS CDK makes this resource depend on its role and the role\'s policy, so that the policy exists first; the role part is also implied by the GetAtt of its ARN.',
  });
}
