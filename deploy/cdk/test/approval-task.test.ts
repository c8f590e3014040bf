import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { SlackApprovalTask, SlackApprovalTaskProps } from '../lib';

const NOTIFIER = 'arn:aws:lambda:us-east-1:123456789012:function:approvals-notifier';

function setup(): { stack: Stack; notifier: lambda.IFunction } {
  const stack = new Stack(undefined, 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
  return { stack, notifier: lambda.Function.fromFunctionArn(stack, 'Notifier', NOTIFIER) };
}

function base(notifier: lambda.IFunction): SlackApprovalTaskProps {
  return { notifier, channel: 'C0PUBLISH', approvers: ['U0ALICE', 'S0EDITORS'], title: 'Publish the post', timeout: Duration.days(1) };
}

// The state's JSON as the state machine renders it, tokens resolved.
function stateJson(stack: Stack, task: SlackApprovalTask, topLevel?: sfn.QueryLanguage): any {
  return stack.resolve(task.toStateJson(topLevel));
}

describe('SlackApprovalTask in JSONPath', () => {
  test('passes the token, execution and state from the context object, and the request', () => {
    const { stack, notifier } = setup();
    const task = new SlackApprovalTask(stack, 'Approve', {
      ...base(notifier),
      requestedBy: sfn.JsonPath.stringAt('$.requestedBy'),
      title: sfn.JsonPath.format('Publish {}', sfn.JsonPath.stringAt('$.date')),
      drafts: sfn.JsonPath.listAt('$.drafts'),
      revisionPresets: ['Shorter', 'More detail'],
      allowSkip: true,
      quorum: 2,
      requireComment: ['reject'],
      reminders: ['2h', '90%'],
      escalateTo: ['S0LEADS'],
      escalateAfter: '50%',
      onDeadline: 'reject',
      heartbeat: Duration.minutes(5),
      resultPath: '$.approval',
    });
    const json = stateJson(stack, task);
    expect(json.Type).toBe('Task');
    expect(json.Resource).toEqual({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':states:::lambda:invoke.waitForTaskToken']] });
    expect(json.Arguments).toBeUndefined();
    expect(json.Parameters).toEqual({
      FunctionName: NOTIFIER,
      Payload: {
        'taskToken.$': '$$.Task.Token',
        'executionArn.$': '$$.Execution.Id',
        'stateName.$': '$$.State.Name',
        'channel': 'C0PUBLISH',
        'approvers': ['U0ALICE', 'S0EDITORS'],
        'requestedBy.$': '$.requestedBy',
        'title.$': "States.Format('Publish {}', $.date)",
        'drafts.$': '$.drafts',
        'revisionPresets': ['Shorter', 'More detail'],
        'allowSkip': true,
        'timeoutSeconds': 86400,
        'quorum': 2,
        'requireComment': ['reject'],
        'reminders': ['2h', '90%'],
        'escalateTo': ['S0LEADS'],
        'escalateAfter': '50%',
        'onDeadline': 'reject',
        'heartbeatSeconds': 300,
      },
    });
    // The Task's timeout is the request's deadline; its heartbeat leaves
    // room for two of the bot's heartbeats and a sweep.
    expect(json.TimeoutSeconds).toBe(86400);
    expect(json.HeartbeatSeconds).toBe(2 * 300 + 30);
    expect(json.ResultPath).toBe('$.approval');
    expect(json.Retry).toEqual([
      { ErrorEquals: ['SlackPostFailed'], IntervalSeconds: 2, MaxAttempts: 6, BackoffRate: 2, MaxDelaySeconds: 60, JitterStrategy: 'FULL' },
      { ErrorEquals: ['StoreUnavailable'], IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2 },
    ]);
  });

  test('leaves the retries out when asked', () => {
    const { stack, notifier } = setup();
    const task = new SlackApprovalTask(stack, 'Approve', { ...base(notifier), retryNotifierErrors: false });
    expect(stateJson(stack, task).Retry).toBeUndefined();
  });

  test('refuses a JSONata expression', () => {
    const { stack, notifier } = setup();
    const task = new SlackApprovalTask(stack, 'Approve', { ...base(notifier), title: "{% 'Publish ' & $x %}" });
    expect(() => stateJson(stack, task)).toThrow(/title is a JSONata expression in a JSONPath state/);
  });
});

describe('SlackApprovalTask in JSONata', () => {
  test('passes the token through $states.context, in Arguments', () => {
    const { stack, notifier } = setup();
    const task = SlackApprovalTask.jsonata(stack, 'Approve', {
      ...base(notifier),
      requestedBy: '{% $request.requestedBy %}',
      drafts: '{% $draft.drafts %}',
      fields: { Environment: 'production', Version: '{% $states.input.version %}' },
      assign: { approval: '{% $states.result %}' },
    });
    const json = stateJson(stack, task);
    expect(json.Parameters).toBeUndefined();
    expect(json.QueryLanguage).toBe('JSONata');
    expect(json.Arguments).toEqual({
      FunctionName: NOTIFIER,
      Payload: {
        taskToken: '{% $states.context.Task.Token %}',
        executionArn: '{% $states.context.Execution.Id %}',
        stateName: '{% $states.context.State.Name %}',
        channel: 'C0PUBLISH',
        approvers: ['U0ALICE', 'S0EDITORS'],
        requestedBy: '{% $request.requestedBy %}',
        title: 'Publish the post',
        fields: { Environment: 'production', Version: '{% $states.input.version %}' },
        drafts: '{% $draft.drafts %}',
        timeoutSeconds: 86400,
      },
    });
    expect(json.TimeoutSeconds).toBe(86400);
    expect(json.Assign).toEqual({ approval: '{% $states.result %}' });
  });

  test('follows the state machine\'s query language when it names none', () => {
    const { stack, notifier } = setup();
    const task = new SlackApprovalTask(stack, 'Approve', base(notifier));
    const json = stateJson(stack, task, sfn.QueryLanguage.JSONATA);
    expect(json.Arguments.Payload.taskToken).toBe('{% $states.context.Task.Token %}');
    expect(json.QueryLanguage).toBeUndefined();
  });

  test('refuses a JsonPath reference', () => {
    const { stack, notifier } = setup();
    const task = SlackApprovalTask.jsonata(stack, 'Approve', { ...base(notifier), requestedBy: sfn.JsonPath.stringAt('$.requestedBy') });
    expect(() => stateJson(stack, task)).toThrow(/requestedBy is a JsonPath reference in a JSONata state/);
  });
});

describe('SlackApprovalTask in a state machine', () => {
  test.each([sfn.QueryLanguage.JSON_PATH, sfn.QueryLanguage.JSONATA])('grants exactly lambda:InvokeFunction on the notifier (%s)', (queryLanguage) => {
    const { stack, notifier } = setup();
    const task = new SlackApprovalTask(stack, 'Approve', base(notifier));
    new sfn.StateMachine(stack, 'Machine', { queryLanguage, definitionBody: sfn.DefinitionBody.fromChainable(task) });
    const template = Template.fromStack(stack);
    const policies = template.findResources('AWS::IAM::Policy');
    const statements = Object.values(policies).flatMap((p: any) => p.Properties.PolicyDocument.Statement);
    expect(statements).toEqual([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: NOTIFIER }]);
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionString: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([Match.stringLikeRegexp('waitForTaskToken')])]) }),
    });
  });
});

// Each literal the notifier would refuse fails at synth time, naming the field.
describe('SlackApprovalTask checks its props', () => {
  const cases: Array<[string, Partial<SlackApprovalTaskProps>, RegExp]> = [
    ['a channel name', { channel: '#publishing' }, /channel "#publishing" is not a Slack channel ID/],
    ['a channel path written as text', { channel: '$.channel' }, /channel holds "\$\.channel", a path or expression written as text/],
    ['no approvers', { approvers: [] }, /approvers is required/],
    ['an approver that is a name', { approvers: ['alice'] }, /approver "alice" is neither a user ID/],
    ['an approver that is a channel', { approvers: ['C0PUBLISH'] }, /approver "C0PUBLISH" is neither/],
    ['51 approvers', { approvers: Array.from({ length: 51 }, (_, i) => `U0${i}XX`) }, /approvers has 51 entries; at most 50/],
    ['approvers as one literal string', { approvers: 'U0ALICE,U0BOB' }, /approvers is a single string/],
    ['a requester that is a group', { requestedBy: 'S0EDITORS' }, /requestedBy "S0EDITORS" is not a Slack user ID/],
    ['a thread that is no timestamp', { threadTs: 'yesterday' }, /threadTs "yesterday" is not a Slack message timestamp/],
    ['an empty title', { title: '  ' }, /title is required/],
    ['a long title', { title: 'x'.repeat(151) }, /title is longer than 150 characters/],
    ['a long summary', { summary: 'x'.repeat(3001) }, /summary is longer than 3000/],
    ['eleven fields', { fields: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, 'v'])) }, /fields has 11 entries/],
    ['six drafts', { drafts: ['a', 'b', 'c', 'd', 'e', 'f'] }, /drafts has 6 entries; at most 5/],
    ['an empty draft', { drafts: ['a', ' '] }, /draft 2 is empty/],
    ['too much text', { drafts: Array.from({ length: 5 }, () => 'x'.repeat(2900)) }, /add up to 14516 characters; Slack shows at most 12000/],
    ['a repeated preset', { revisionPresets: ['Shorter', ' Shorter '] }, /revisionPresets repeats "Shorter" \(presets 1 and 2\)/],
    ['a long preset', { revisionPresets: ['x'.repeat(76)] }, /revision preset 1 is longer than 75/],
    ['a timeout of a fraction of a second', { timeout: Duration.millis(500) }, /timeout must be a whole number of seconds/],
    ['quorum 11', { quorum: 11 }, /quorum must be a whole number from 1 to 10/],
    ['a quorum nobody can reach', { approvers: ['U0ALICE', 'U0BOB'], requestedBy: 'U0BOB', quorum: 2 }, /quorum 2 needs at least 2 people who may approve, but approvers and escalateTo name 1/],
    ['requireComment on a skip', { requireComment: ['skip' as 'approve'] }, /requireComment holds "skip"/],
    ['a reminder after the deadline', { timeout: Duration.hours(12), reminders: ['24h'] }, /reminders entry "24h" does not fall before the deadline/],
    ['a reminder that is no duration', { reminders: ['soon'] }, /reminders entry "soon" is neither a duration/],
    ['a reminder at 100%', { reminders: ['100%'] }, /is not a percentage above 0% and below 100%/],
    ['a repeated reminder', { reminders: ['2h', '2h'] }, /reminders repeats "2h"/],
    ['escalateAfter without escalateTo', { escalateAfter: '50%' }, /escalateAfter needs escalateTo/],
    ['escalation to a channel', { escalateTo: ['C0LEADS'] }, /escalateTo entry "C0LEADS" is neither/],
    ['onDeadline skip without allowSkip', { onDeadline: 'skip' }, /onDeadline "skip" needs allowSkip true/],
    ['onDeadline with a timeout below what it needs', { onDeadline: 'reject', timeout: Duration.minutes(4) }, /onDeadline needs a timeout of at least 300 s/],
    ['a heartbeat below a minute', { heartbeat: Duration.seconds(30) }, /heartbeat must be a whole number of seconds, at least 60/],
    ['a heartbeat past the timeout', { heartbeat: Duration.hours(2), timeout: Duration.hours(1) }, /heartbeat must be less than timeout/],
    ['a Task heartbeat past the timeout', { heartbeat: Duration.minutes(10), timeout: Duration.minutes(15) }, /HeartbeatSeconds would be 1230/],
  ];
  test.each(cases)('%s', (_name, change, want) => {
    const { stack, notifier } = setup();
    expect(() => new SlackApprovalTask(stack, 'Approve', { ...base(notifier), ...change })).toThrow(want);
  });

  const valid: Array<[string, Partial<SlackApprovalTaskProps>]> = [
    ['a direct message', { channel: 'U0ALICE' }],
    ['a reachable quorum with self-approval', { approvers: ['U0ALICE', 'U0BOB'], requestedBy: 'U0BOB', quorum: 2, allowSelfApproval: true }],
    ['a quorum of groups (sizes unknown at synth)', { approvers: ['S0EDITORS'], quorum: 3 }],
    ['onDeadline skip with allowSkip', { onDeadline: 'skip', allowSkip: true, timeout: Duration.minutes(5) }],
    ['reminders as Go durations', { reminders: ['1h30m', '90m', '12.5%'] }],
    ['free text with dollars and braces', { title: '$5 off {sale}', summary: '$.not a path here' }],
    ['values computed at run time', { channel: sfn.JsonPath.stringAt('$.channel'), approvers: sfn.JsonPath.listAt('$.approvers'), drafts: sfn.JsonPath.listAt('$.drafts') }],
  ];
  test.each(valid)('accepts %s', (_name, change) => {
    const { stack, notifier } = setup();
    expect(() => new SlackApprovalTask(stack, 'Approve', { ...base(notifier), ...change })).not.toThrow();
  });
});
