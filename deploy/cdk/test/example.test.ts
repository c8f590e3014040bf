import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { context, ExampleStack } from '../example/app';

// npm test synthesises the example into cdk.out/ before jest runs.
const CDK_OUT = path.join(__dirname, '..', '..', 'cdk.out');

test('the example builds publish-with-approval from SlackApprovalTask, in JSONPath and in JSONata', () => {
  const app = new App();
  const template = Template.fromStack(new ExampleStack(app, 'ApprovalsExample', context(app)));
  const definitions = Object.values(template.findResources('AWS::StepFunctions::StateMachine'))
    .map((m: any) => JSON.stringify(m.Properties.DefinitionString));
  expect(definitions).toHaveLength(2);
  expect(definitions.filter((d) => d.includes('\\"taskToken.$\\":\\"$$.Task.Token\\"'))).toHaveLength(1);
  expect(definitions.filter((d) => d.includes('\\"taskToken\\":\\"{% $states.context.Task.Token %}\\"'))).toHaveLength(1);
  template.resourceCountIs('AWS::Lambda::Function', 2);
  template.resourceCountIs('AWS::ECS::Service', 1);
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
