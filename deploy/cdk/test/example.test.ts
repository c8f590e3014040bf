import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { context, ExampleStack } from '../example/app';
import { DEFINITIONS } from './cfn';

// npm test synthesises the example into cdk.out/ before jest runs.
const CDK_OUT = path.join(__dirname, '..', '..', 'cdk.out');

test('the example builds publish-with-approval from SlackApprovalTask, in JSONPath and in JSONata', () => {
  const app = new App();
  const template = Template.fromStack(new ExampleStack(app, 'ApprovalsExample', context(app)));
  const definitions = Object.values(template.findResources('AWS::StepFunctions::StateMachine'))
    .filter((m: any) => m.Properties.DefinitionString !== undefined)
    .map((m: any) => JSON.stringify(m.Properties.DefinitionString));
  expect(definitions).toHaveLength(2);
  expect(definitions.filter((d) => d.includes('\\"taskToken.$\\":\\"$$.Task.Token\\"'))).toHaveLength(1);
  expect(definitions.filter((d) => d.includes('\\"taskToken\\":\\"{% $states.context.Task.Token %}\\"'))).toHaveLength(1);
  template.resourceCountIs('AWS::Lambda::Function', 3);
  template.resourceCountIs('AWS::ECS::Service', 1);
});

test('the example deploys the shipped batch workflow, with ECS workers and with a Lambda worker, each file unedited', () => {
  const template = JSON.parse(fs.readFileSync(path.join(CDK_OUT, 'ApprovalsExample.template.json'), 'utf8'));
  const machines = Object.values(template.Resources as Record<string, any>).filter((r) => r.Type === 'AWS::StepFunctions::StateMachine');
  expect(machines).toHaveLength(4);
  const batch = machines.filter((m) => m.Properties.DefinitionS3Location !== undefined);
  expect(batch.map((m) => Object.keys(m.Properties.DefinitionSubstitutions).sort())).toEqual([
    ['Approvers', 'BatchBucket', 'Channel', 'NotifierFunctionArn', 'WorkerCluster', 'WorkerContainer', 'WorkerSecurityGroups', 'WorkerSubnets', 'WorkerTaskDefinition'],
    ['Approvers', 'BatchBucket', 'Channel', 'NotifierFunctionArn', 'ProcessItemFunctionArn'],
  ]);
  // What cdk deploy uploads for each is the shipped file, byte for byte.
  const shipped = ['batch-with-approved-retries.asl.json', 'batch-with-approved-retries.lambda.asl.json']
    .map((f) => fs.readFileSync(path.join(DEFINITIONS, f)));
  const uploaded = batch.map((m) => fs.readFileSync(path.join(CDK_OUT, `asset.${m.Properties.DefinitionS3Location.Key}`)));
  expect(uploaded).toEqual(shipped);
  for (const m of batch) {
    expect(m.Properties.StateMachineType).toBe('STANDARD');
    expect(m.Properties.LoggingConfiguration.Level).toBe('ERROR');
  }
  // The bot serves them: listed in the execution status rule.
  const rule = Object.values(template.Resources as Record<string, any>).find((r) => r.Type === 'AWS::Events::Rule');
  expect(rule.Properties.EventPattern.detail.stateMachineArn).toHaveLength(4);
});

test('cfn-lint finds nothing in any synthesised template', () => {
  const templates = fs.existsSync(CDK_OUT) ? fs.readdirSync(CDK_OUT).filter((f) => f.endsWith('.template.json')) : [];
  expect(templates).toContain('ApprovalsExample.template.json');
  const lint = spawnSync('cfn-lint', templates.map((t) => path.join(CDK_OUT, t)), { encoding: 'utf8' });
  if (lint.error) {
    throw new Error(`cfn-lint could not run (${lint.error.message}): install it with pip install cfn-lint==1.51.0`);
  }
  expect(lint.stdout + lint.stderr).toBe('');
  expect(lint.status).toBe(0);
});
