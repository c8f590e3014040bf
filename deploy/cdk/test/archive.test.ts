// The audit archive of Approvals compared with deploy/cloudformation.yaml's
// (read with CfnInclude, the intrinsic functions of both sides evaluated
// for the same values), and held to what deploy/archive_test.go holds the
// template to: every audit record reaches it, and no role can do anything
// to it but append.

import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Env, evaluate, permissions, templateResource } from './cfn';
import { arnOf, build, KEY, logicalId, statements } from './approvals-stack';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:alarms';
const PSEUDO = { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-1', 'AWS::AccountId': '123456789012', 'AWS::StackName': 'approvals' };

// The only actions any role may hold on the archive's log group: they append.
const ARCHIVE_WRITES = ['logs:CreateLogStream', 'logs:PutLogEvents'];

// Actions that would stop the archive or change what it writes
// (archiveSwitches in deploy/archive_test.go).
const ARCHIVE_SWITCHES = [
  'dynamodb:UpdateTable', 'dynamodb:DeleteTable',
  'lambda:UpdateFunctionCode', 'lambda:UpdateFunctionConfiguration', 'lambda:DeleteFunction', 'lambda:PutFunctionConcurrency',
  'lambda:UpdateEventSourceMapping', 'lambda:DeleteEventSourceMapping', 'lambda:CreateEventSourceMapping',
];

interface Options {
  readonly key?: boolean;
  readonly topic?: boolean;
}

// The archive's resources in the template and in the construct, with what
// evaluates each side: the same values, and the same names for the
// resources they refer to (STREAM, ARCHIVE, FUNCTION, ROLE).
function sides(opts: Options = {}) {
  const { stack, approvals } = build((s) => ({
    encryptionKey: opts.key ? kms.Key.fromKeyArn(s, 'Key', KEY) : undefined,
    alarmTopic: opts.topic ? sns.Topic.fromTopicArn(s, 'Topic', TOPIC) : undefined,
  }));
  const json = Template.fromStack(stack).toJSON();
  const role = approvals.archiveFunction.role!;
  const [tableId, groupId, functionId, roleId] = [approvals.table, approvals.auditArchive, approvals.archiveFunction, role]
    .map((c) => logicalId(stack, c));
  const of = (type: string) => Object.values(json.Resources as Record<string, any>).filter((r) => r.Type === type);
  const mappings = of('AWS::Lambda::EventSourceMapping');
  expect(mappings).toHaveLength(1);
  const cdkEnv: Env = {
    refs: { ...PSEUDO, [`${tableId}.StreamArn`]: 'STREAM', [`${groupId}.Arn`]: 'ARCHIVE_ARN', [groupId]: 'ARCHIVE', [functionId]: 'FUNCTION', [`${roleId}.Arn`]: 'ROLE' },
  };
  const templateEnv: Env = {
    refs: {
      ...PSEUDO, 'ApprovalsTable.StreamArn': 'STREAM', 'AuditArchiveLogGroup.Arn': 'ARCHIVE_ARN', 'AuditArchiveLogGroup': 'ARCHIVE',
      'ArchiveFunction': 'FUNCTION', 'ArchiveRole.Arn': 'ROLE', 'KmsKeyArn': KEY, 'AlarmTopicArn': TOPIC, 'AuditArchiveRetentionDays': 400,
      'NotifierCodeBucket': 'approvals-artifacts', 'ArchiveCodeKey': 'archive/1.zip',
    },
    conditions: { HasKmsKey: !!opts.key, HasAlarmTopic: !!opts.topic },
  };
  return {
    stack,
    approvals,
    cdk: {
      env: cdkEnv,
      role: json.Resources[roleId],
      policies: of('AWS::IAM::Policy').filter((p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: roleId }])).map((p) => p.Properties.PolicyDocument),
      function: json.Resources[functionId],
      mapping: mappings[0],
      logGroup: json.Resources[groupId],
      alarm: json.Resources[logicalId(stack, approvals.alarms.ArchiveBehindAlarm)],
    },
    template: {
      env: templateEnv,
      role: templateResource('ArchiveRole'),
      function: templateResource('ArchiveFunction'),
      mapping: templateResource('ArchiveEventSourceMapping'),
      logGroup: templateResource('AuditArchiveLogGroup'),
      alarm: templateResource('ArchiveBehindAlarm'),
    },
  };
}

// withPatterns parses the filters' patterns, which are JSON in a string.
function withPatterns(props: any): any {
  return { ...props, FilterCriteria: { Filters: props.FilterCriteria.Filters.map((f: any) => ({ Pattern: JSON.parse(f.Pattern) })) } };
}

function without(props: any, ...keys: string[]): any {
  return Object.fromEntries(Object.entries(props).filter(([k]) => !keys.includes(k)));
}

describe('the audit archive deploys what the template deploys', () => {
  test.each([false, true])('its role allows exactly the template\'s statements (key %p), and trusts the same principal', (key) => {
    const s = sides({ key });
    const want = permissions(s.template.role.Properties.Policies.map((p: any) => p.PolicyDocument), s.template.env);
    expect(want).toHaveLength(key ? 7 : 6);
    expect(permissions(s.cdk.policies, s.cdk.env)).toEqual(want);
    expect(evaluate(s.cdk.role.Properties.AssumeRolePolicyDocument.Statement, s.cdk.env))
      .toEqual(evaluate(s.template.role.Properties.AssumeRolePolicyDocument.Statement, s.template.env));
    expect(s.cdk.role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(s.cdk.role.Properties.Policies).toBeUndefined();
  });

  test('its function: the build\'s bootstrap, size, timeout, role and Text logging to the archive, as the template\'s', () => {
    const s = sides();
    const cdk = evaluate(s.cdk.function.Properties, s.cdk.env);
    const tmpl = evaluate(s.template.function.Properties, s.template.env);
    expect(tmpl.FunctionName).toBe('approvals-archive');
    // The construct names none of its functions: two in one stack must not collide.
    expect(cdk).toEqual(without(tmpl, 'FunctionName'));
    expect(cdk.LoggingConfig).toEqual({ LogGroup: 'ARCHIVE', LogFormat: 'Text' });
  });

  test('its mapping reads audit records only, from the stream\'s oldest record, retried until archived, as the template\'s', () => {
    const s = sides();
    const cdk = withPatterns(evaluate(s.cdk.mapping.Properties, s.cdk.env));
    expect(cdk).toEqual(withPatterns(evaluate(s.template.mapping.Properties, s.template.env)));
    expect(cdk).toEqual({
      FunctionName: 'FUNCTION',
      EventSourceArn: 'STREAM',
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumRetryAttempts: -1,
      MaximumRecordAgeInSeconds: -1,
      FilterCriteria: { Filters: [{ Pattern: { dynamodb: { Keys: { id: { S: [{ prefix: 'log#' }] } } } } }] },
    });
  });

  test.each([false, true])('its log group: retained, 400 days, and with a key (%p) that key, as the template\'s', (key) => {
    const s = sides({ key });
    expect(s.cdk.logGroup.DeletionPolicy).toBe('Retain');
    expect(s.cdk.logGroup.UpdateReplacePolicy).toBe('Retain');
    expect(s.template.logGroup.DeletionPolicy).toBe('Retain');
    expect(s.template.logGroup.UpdateReplacePolicy).toBe('Retain');
    const cdk = evaluate(s.cdk.logGroup.Properties, s.cdk.env);
    const tmpl = evaluate(s.template.logGroup.Properties, s.template.env);
    expect(tmpl.LogGroupName).toBe('/approvals/audit-archive');
    expect(cdk).toEqual(without(tmpl, 'LogGroupName'));
    expect(cdk).toEqual(key ? { RetentionInDays: 400, KmsKeyId: KEY } : { RetentionInDays: 400 });
  });

  test.each([false, true])('its alarm: the function an hour behind the stream, and with a topic (%p) notifying it, as the template\'s', (topic) => {
    const s = sides({ topic });
    const cdk = evaluate(s.cdk.alarm.Properties, s.cdk.env);
    expect(cdk).toEqual(evaluate(s.template.alarm.Properties, s.template.env));
    expect(cdk).toMatchObject({
      Namespace: 'AWS/Lambda', MetricName: 'IteratorAge', Dimensions: [{ Name: 'FunctionName', Value: 'FUNCTION' }],
      Statistic: 'Maximum', Period: 300, Threshold: 3600000, ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(cdk.AlarmActions).toEqual(topic ? [TOPIC] : undefined);
  });
});

describe('the audit archive\'s retention', () => {
  test.each([
    [logs.RetentionDays.ONE_YEAR, 365],
    [logs.RetentionDays.TWO_YEARS, 731],
    [logs.RetentionDays.TEN_YEARS, 3653],
  ])('auditArchiveRetention %p keeps records %p days; the other log groups keep theirs', (retention, days) => {
    const template = Template.fromStack(build(() => ({ auditArchiveRetention: retention })).stack);
    const retentions = (Object.values(template.findResources('AWS::Logs::LogGroup')) as any[]).map((g) => g.Properties.RetentionInDays);
    expect(retentions.sort((a, b) => a - b)).toEqual([30, 30, 30, days].sort((a, b) => a - b));
  });

  test('RetentionDays.INFINITE keeps records forever', () => {
    const { stack, approvals } = build(() => ({ auditArchiveRetention: logs.RetentionDays.INFINITE }));
    const group = Template.fromStack(stack).toJSON().Resources[logicalId(stack, approvals.auditArchive)];
    expect(group.Properties?.RetentionInDays).toBeUndefined();
    expect(group.DeletionPolicy).toBe('Retain');
  });

  test.each([logs.RetentionDays.ONE_MONTH, logs.RetentionDays.SIX_MONTHS, 364, 500])('refuses auditArchiveRetention %p', (days) => {
    expect(() => build(() => ({ auditArchiveRetention: days as logs.RetentionDays }))).toThrow(/auditArchiveRetention must be a RetentionDays of a year or more/);
  });
});

// deploy/archive_test.go's TestNoRoleCanChangeTheAuditArchive, for the
// construct's roles: on the archive's log group a role may only append,
// and only the archive's role may; no role holds any other CloudWatch
// Logs action, nor one that changes the stream, the function or its
// mapping, nor iam: or cloudformation: actions, nor a wildcard action.
test.each([{}, { key: true }, { topic: true }])('no role may do anything to the audit archive but append, nor switch it off (%p)', (opts: Options) => {
  const { stack, approvals } = sides(opts);
  const template = Template.fromStack(stack);
  const archive = arnOf(stack, approvals.auditArchive);
  const archiveRole = logicalId(stack, approvals.archiveFunction.role!);
  const roles = Object.entries(template.findResources('AWS::IAM::Role'));
  expect(roles.length).toBeGreaterThanOrEqual(5);
  template.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
  let onArchive = 0;
  for (const [id, role] of roles) {
    // All a role allows is in its AWS::IAM::Policy resources, which statements reads.
    expect((role as any).Properties.ManagedPolicyArns).toBeUndefined();
    expect((role as any).Properties.Policies).toBeUndefined();
    for (const s of statements(template, id)) {
      const [action, resource] = s.split(' on ');
      const service = action.split(':')[0];
      expect([id, action]).not.toEqual([id, expect.stringContaining('*')]);
      expect([id, service]).not.toEqual([id, expect.stringMatching(/^(iam|cloudformation)$/)]);
      expect(ARCHIVE_SWITCHES).not.toContain(action);
      if (service === 'logs') {
        expect([id, action]).toEqual([id, expect.stringMatching(/^logs:(CreateLogStream|PutLogEvents)$/)]);
        expect(resource).not.toBe('*');
      }
      if (resource === archive) {
        expect([id, ARCHIVE_WRITES.includes(action)]).toEqual([archiveRole, true]);
        onArchive++;
      }
    }
  }
  expect(onArchive).toBe(ARCHIVE_WRITES.length);
});
