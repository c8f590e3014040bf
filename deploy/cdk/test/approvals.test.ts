import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CfnElement, Stage } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { ApprovalsCode } from '../lib';
import { arnOf, build, KEY, SECRET, statements } from './approvals-stack';

describe('Approvals', () => {
  test('the table equals the template\'s: key, indexes without the token, TTL, recovery, protection, kept, both images streamed', () => {
    const template = Template.fromStack(build().stack);
    const attrs = ['status', 'executionArn', 'stateName', 'channel', 'threadTs', 'messageTs', 'approvers',
      'requestedBy', 'title', 'createdAt', 'deadline', 'claimedAt', 'closedAt', 'decision', 'messageSynced'];
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: Match.arrayEquals([
          { AttributeName: 'id', AttributeType: 'S' },
          { AttributeName: 'queue', AttributeType: 'S' },
          { AttributeName: 'queuedAt', AttributeType: 'S' },
          { AttributeName: 'openExecution', AttributeType: 'S' },
          { AttributeName: 'openedAt', AttributeType: 'S' },
        ]),
        GlobalSecondaryIndexes: [
          { IndexName: 'queue-index', KeySchema: [{ AttributeName: 'queue', KeyType: 'HASH' }, { AttributeName: 'queuedAt', KeyType: 'RANGE' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: attrs } },
          { IndexName: 'execution-index', KeySchema: [{ AttributeName: 'openExecution', KeyType: 'HASH' }, { AttributeName: 'openedAt', KeyType: 'RANGE' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: attrs } },
        ],
        TimeToLiveSpecification: { AttributeName: 'purgeAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        SSESpecification: Match.absent(),
      },
    });
  });

  test('each Lambda role allows what the template\'s does, nothing more', () => {
    const { stack, approvals } = build();
    const template = Template.fromStack(stack);
    const secret = SECRET;
    const TABLE = arnOf(stack, approvals.table);
    const tableIndex = (name: string) => `{"Fn::Join":["",[${TABLE},"/index/${name}"]]}`;
    const dlq = arnOf(stack, approvals.deadLetterQueue);
    const notifierLogs = arnOf(stack, approvals.node.findChild('NotifierLogGroup'));
    const eventsLogs = arnOf(stack, approvals.node.findChild('EventsLogGroup'));
    const stream = JSON.stringify({ 'Fn::GetAtt': [JSON.parse(TABLE)['Fn::GetAtt'][0], 'StreamArn'] });
    const archive = arnOf(stack, approvals.auditArchive);
    expect(statements(template, 'ApprovalsNotifierRole')).toEqual([
      `dynamodb:BatchGetItem on ${TABLE}`,
      `dynamodb:DeleteItem on ${TABLE}`,
      `dynamodb:GetItem on ${TABLE}`,
      `dynamodb:PutItem on ${TABLE}`,
      `dynamodb:Query on ${tableIndex('execution-index')}`,
      `dynamodb:UpdateItem on ${TABLE}`,
      `logs:CreateLogStream on ${notifierLogs}`,
      `logs:PutLogEvents on ${notifierLogs}`,
      `secretsmanager:GetSecretValue on ${secret}`,
      'states:SendTaskHeartbeat on *',
    ]);
    expect(statements(template, 'ApprovalsEventsRole')).toEqual([
      `dynamodb:BatchGetItem on ${TABLE}`,
      `dynamodb:DeleteItem on ${TABLE}`,
      `dynamodb:GetItem on ${TABLE}`,
      `dynamodb:PutItem on ${TABLE}`,
      `dynamodb:Query on ${tableIndex('execution-index')}`,
      `dynamodb:UpdateItem on ${TABLE}`,
      `logs:CreateLogStream on ${eventsLogs}`,
      `logs:PutLogEvents on ${eventsLogs}`,
      `secretsmanager:GetSecretValue on ${secret}`,
      `sqs:SendMessage on ${dlq}`,
    ]);
    // Not grantStreamRead's: that adds ListStreams on *.
    expect(statements(template, 'ApprovalsArchiveRole')).toEqual([
      `dynamodb:DescribeStream on ${stream}`,
      `dynamodb:GetRecords on ${stream}`,
      `dynamodb:GetShardIterator on ${stream}`,
      `dynamodb:ListStreams on ${stream}`,
      `logs:CreateLogStream on ${archive}`,
      `logs:PutLogEvents on ${archive}`,
    ]);
    // No managed or inline policies: nothing beyond the statements above.
    const roles = Object.entries(template.findResources('AWS::IAM::Role'));
    expect(roles.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'ApprovalsArchiveRole', 'ApprovalsBotTaskDefinitionExecutionRole', 'ApprovalsBotTaskRole', 'ApprovalsEventsRole', 'ApprovalsNotifierRole',
    ]);
    for (const [, role] of roles) {
      expect((role as any).Properties.ManagedPolicyArns).toBeUndefined();
      expect((role as any).Properties.Policies).toBeUndefined();
    }
  });

  // deploy/cloudformation.yaml's roles are derived from the code's calls
  // (TestRolesAllowExactlyWhatTheCodeCalls in deploy/iam_test.go): the
  // construct's roles allow the same DynamoDB and CloudWatch Logs actions,
  // so neither deployment lacks one the code (or Lambda, for the archive's
  // stream and the functions' logs) needs, nor holds one more.
  test('each role allows the DynamoDB and CloudWatch Logs actions the CloudFormation template\'s does', () => {
    const template = Template.fromStack(build().stack);
    // __dirname is dist/test; the template is deploy/cloudformation.yaml.
    const yaml = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'cloudformation.yaml'), 'utf8');
    // The policy's text: up to the next policy or the next resource.
    const policyText = (policy: string): string => {
      const start = yaml.indexOf(`PolicyName: ${policy}\n`);
      expect(start).toBeGreaterThan(0);
      const rest = yaml.slice(start + 1);
      const ends = [rest.indexOf('PolicyName:'), rest.search(/^ {2}\w+:\s*$/m)].filter((i) => i >= 0);
      return yaml.slice(start, ends.length ? start + 1 + Math.min(...ends) : undefined);
    };
    const fromYaml = (policy: string, service: string): string[] => {
      const actions = [...policyText(policy).matchAll(new RegExp(`^\\s*(?:-|Action:)\\s*${service}:(\\w+)\\s*$`, 'gm'))];
      return [...new Set(actions.map((m) => m[1]))].sort();
    };
    const fromCdk = (role: string, service: string): string[] =>
      [...new Set(statements(template, role).filter((s) => s.startsWith(`${service}:`)).map((s) => s.split(' ')[0].slice(service.length + 1)))].sort();
    for (const [policy, role, logs] of [
      ['approvals-notifier', 'ApprovalsNotifierRole', true],
      ['approvals-events', 'ApprovalsEventsRole', true],
      ['approvals-bot', 'ApprovalsBotTaskRole', false],
      ['approvals-archive', 'ApprovalsArchiveRole', true],
    ] as const) {
      expect(fromYaml(policy, 'dynamodb').length).toBeGreaterThan(0);
      expect(fromYaml(policy, 'logs').length).toBe(logs ? 2 : 0);
      for (const service of ['dynamodb', 'logs']) {
        expect([policy, service, fromCdk(role, service)]).toEqual([policy, service, fromYaml(policy, service)]);
      }
    }
  });

  test('the bot\'s task role reads the executions of every state machine, or of those added', () => {
    const all = build();
    const TABLE = arnOf(all.stack, all.approvals.table);
    const tableIndex = (name: string) => `{"Fn::Join":["",[${TABLE},"/index/${name}"]]}`;
    const everyExecution = '{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},":states:us-east-1:123456789012:execution:*:*"]]}';
    expect(statements(Template.fromStack(all.stack), 'ApprovalsBotTaskRole')).toEqual([
      `dynamodb:BatchGetItem on ${TABLE}`,
      `dynamodb:DeleteItem on ${TABLE}`,
      `dynamodb:GetItem on ${TABLE}`,
      `dynamodb:PutItem on ${TABLE}`,
      `dynamodb:Query on ${tableIndex('execution-index')}`,
      `dynamodb:Query on ${tableIndex('queue-index')}`,
      `dynamodb:UpdateItem on ${TABLE}`,
      `states:DescribeExecution on ${everyExecution}`,
      `states:GetExecutionHistory on ${everyExecution}`,
      'states:SendTaskFailure on *',
      'states:SendTaskHeartbeat on *',
      'states:SendTaskSuccess on *',
    ]);

    const listed = build(() => ({ stateMachineArns: ['arn:aws:states:us-east-1:123456789012:stateMachine:nightly-certs'] }));
    const machine = new sfn.StateMachine(listed.stack, 'Machine', { definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(listed.stack, 'P')) });
    listed.approvals.addStateMachine(machine);
    const template = Template.fromStack(listed.stack);
    const machineRef = { Ref: listed.stack.getLogicalId(machine.node.defaultChild as CfnElement) };
    const executionReads = statements(template, 'ApprovalsBotTaskRole').filter((s) => s.startsWith('states:DescribeExecution'));
    expect(executionReads).toEqual([
      'states:DescribeExecution on arn:aws:states:us-east-1:123456789012:execution:nightly-certs:*',
      `states:DescribeExecution on {"Fn::Join":["",[{"Fn::Join":[":execution:",{"Fn::Split":[":stateMachine:",${JSON.stringify(machineRef)}]}]},":*"]]}`,
    ]);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        'source': ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        'detail': {
          status: ['ABORTED', 'TIMED_OUT', 'FAILED', 'SUCCEEDED'],
          stateMachineArn: ['arn:aws:states:us-east-1:123456789012:stateMachine:nightly-certs', machineRef],
        },
      },
    });
    Template.fromStack(all.stack).hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { detail: { status: ['ABORTED', 'TIMED_OUT', 'FAILED', 'SUCCEEDED'], stateMachineArn: Match.absent() } },
    });
  });

  test('the events Lambda retries twice, then its rule and Lambda keep failures in the dead-letter queue', () => {
    const { stack, approvals } = build();
    const dlq = JSON.parse(arnOf(stack, approvals.deadLetterQueue));
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 3600,
      DestinationConfig: { OnFailure: { Destination: dlq } },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      Targets: [Match.objectLike({
        RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
        DeadLetterConfig: { Arn: dlq },
      })],
    });
    template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 1209600, SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunction', Principal: 'events.amazonaws.com' });
  });

  test('the Lambdas run the build\'s bootstrap on arm64 and get the secret\'s ARN, never a token', () => {
    const template = Template.fromStack(build().stack);
    const fns = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(fns)).toHaveLength(3);
    for (const fn of Object.values(fns) as any[]) {
      expect(fn.Properties).toMatchObject({ Runtime: 'provided.al2023', Architectures: ['arm64'], Handler: 'bootstrap' });
    }
    // The archive gets nothing: it calls nothing (its own tests are in archive.test.ts).
    const archive = Object.entries(fns).filter(([id]) => id.startsWith('ApprovalsArchiveFunction'));
    expect(archive).toHaveLength(1);
    expect((archive[0][1] as any).Properties.Environment).toBeUndefined();
    expect((archive[0][1] as any).Properties.Code).toEqual({ S3Bucket: 'approvals-artifacts', S3Key: 'archive/1.zip' });
    for (const [, fn] of Object.entries(fns).filter(([id]) => !id.startsWith('ApprovalsArchiveFunction')) as [string, any][]) {
      expect(fn.Properties).toMatchObject({ Runtime: 'provided.al2023', Architectures: ['arm64'], Handler: 'bootstrap', MemorySize: 256, LoggingConfig: { LogFormat: 'JSON' } });
      expect(Object.keys(fn.Properties.Environment.Variables).sort()).toEqual(['APPROVALS_TABLE', 'SLACK_SECRET_ARN']);
      expect(fn.Properties.Environment.Variables.SLACK_SECRET_ARN).toBe(SECRET);
      expect(fn.Properties.Code).toEqual({ S3Bucket: 'approvals-artifacts', S3Key: expect.stringMatching(/^(notifier|events)\/1\.zip$/) });
    }
  });

  test('the bot runs on Fargate arm64, read-only, with the tokens as ECS secrets, in a security group that lets nothing in', () => {
    const template = Template.fromStack(build().stack);
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      ContainerDefinitions: [Match.objectLike({
        ReadonlyRootFilesystem: true,
        HealthCheck: { Command: ['CMD', '/approvals-bot', '-healthcheck'], Interval: 30, Timeout: 5, Retries: 3, StartPeriod: 60 },
        Secrets: [
          { Name: 'SLACK_BOT_TOKEN', ValueFrom: `${SECRET}:botToken::` },
          { Name: 'SLACK_APP_TOKEN', ValueFrom: `${SECRET}:appToken::` },
        ],
      })],
    });
    template.hasResourceProperties('AWS::ECS::Service', {
      DesiredCount: 2,
      LaunchType: 'FARGATE',
      DeploymentConfiguration: { MaximumPercent: 200, MinimumHealthyPercent: 100, DeploymentCircuitBreaker: { Enable: true, Rollback: true } },
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'DISABLED' }) },
    });
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] });
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      SecurityGroupEgress: [
        { CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443, Description: 'HTTPS to Slack and AWS (IPv4)' },
        { CidrIpv6: '::/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443, Description: 'HTTPS to Slack and AWS (IPv6)' },
      ],
    });
    template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
    expect(JSON.stringify(template.toJSON())).not.toContain('SecurityGroupIngress');
  });

  test('eight alarms and four metric filters; with a topic, each notifies it when it fires and when it clears', () => {
    const { stack, approvals } = build();
    expect(Object.keys(approvals.alarms).sort()).toEqual([
      'ApprovalsExpiredAlarm', 'ArchiveBehindAlarm', 'BotNotReadyAlarm', 'BotTasksBelowDesiredAlarm', 'EventsFunctionErrorsAlarm',
      'MessagesNotUpdatedAlarm', 'NotifierErrorsAlarm', 'SlackAuthRefusedAlarm',
    ]);
    const plain = Template.fromStack(stack);
    plain.resourceCountIs('AWS::CloudWatch::Alarm', 8);
    plain.resourceCountIs('AWS::Logs::MetricFilter', 4);
    plain.hasResourceProperties('AWS::Logs::MetricFilter', { FilterPattern: '{ $.alert = "approval_expired" }', MetricTransformations: [Match.objectLike({ MetricValue: '$.expired' })] });
    for (const alarm of Object.values(plain.findResources('AWS::CloudWatch::Alarm')) as any[]) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
    }
    const withTopic = Template.fromStack(build((stack) => ({ alarmTopic: sns.Topic.fromTopicArn(stack, 'Topic', 'arn:aws:sns:us-east-1:123456789012:alarms') })).stack);
    for (const alarm of Object.values(withTopic.findResources('AWS::CloudWatch::Alarm')) as any[]) {
      expect(alarm.Properties.AlarmActions).toEqual(['arn:aws:sns:us-east-1:123456789012:alarms']);
      expect(alarm.Properties.OKActions).toEqual(['arn:aws:sns:us-east-1:123456789012:alarms']);
    }
  });

  test('with a key, the table, the queue and every log group use it, and the roles may decrypt', () => {
    const template = Template.fromStack(build((stack) => ({ encryptionKey: kms.Key.fromKeyArn(stack, 'Key', KEY) })).stack);
    template.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: KEY } });
    template.hasResourceProperties('AWS::SQS::Queue', { KmsMasterKeyId: KEY });
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup')) as any[];
    expect(groups).toHaveLength(4);
    for (const g of groups) {
      expect(g.Properties.KmsKeyId).toBe(KEY);
    }
    expect(statements(template, 'ApprovalsNotifierRole')).toContain(`kms:Decrypt on ${KEY}`);
    expect(statements(template, 'ApprovalsEventsRole')).toEqual(expect.arrayContaining([`kms:Decrypt on ${KEY}`, `kms:GenerateDataKey on ${KEY}`]));
    expect(statements(template, 'ApprovalsBotTaskRole')).toContain(`kms:Decrypt on ${KEY}`);
    expect(statements(template, 'ApprovalsBotTaskDefinitionExecutionRole')).toContain(`kms:Decrypt on ${KEY}`);
    // The stream's records.
    expect(statements(template, 'ApprovalsArchiveRole')).toContain(`kms:Decrypt on ${KEY}`);
  });

  test.each([-1, 6, 1.5])('refuses desiredCount %p', (desiredCount) => {
    expect(() => build(() => ({ desiredCount }))).toThrow(/desiredCount must be 0 to 5/);
  });

  test('ApprovalsCode.fromDist takes make package\'s zips as assets', () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'dist-'));
    try {
      const zips = ['notifier.zip', 'approvals-events.zip', 'approvals-archive.zip'];
      for (const zip of zips) {
        fs.writeFileSync(path.join(dist, zip), `a stand-in for ${zip}`);
      }
      const { stack, approvals } = build(() => ({ code: ApprovalsCode.fromDist(dist) }));
      const template = Template.fromStack(stack);
      for (const fn of Object.values(template.findResources('AWS::Lambda::Function')) as any[]) {
        expect(fn.Properties.Code.S3Key).toMatch(/\.zip$/);
      }
      // What each function's asset uploads: its own zip.
      const staged = (fn: lambda.Function) =>
        fs.readFileSync(path.join(Stage.of(stack)!.outdir, (fn.node.findChild('Code') as s3assets.Asset).assetPath), 'utf8');
      expect([approvals.notifier, approvals.eventsFunction, approvals.archiveFunction].map(staged))
        .toEqual(zips.map((zip) => `a stand-in for ${zip}`));
      expect(() => build(() => ({ code: ApprovalsCode.fromDist(path.join(dist, 'missing')) }))).toThrow(/notifier\.zip/);
      // A dist/ built before the archive: the missing zip is named.
      fs.rmSync(path.join(dist, 'approvals-archive.zip'));
      expect(() => build(() => ({ code: ApprovalsCode.fromDist(dist) }))).toThrow(/approvals-archive\.zip/);
    } finally {
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
});
