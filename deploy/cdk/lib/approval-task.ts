import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { checkRequest, isJsonata, SWEEP_INTERVAL_SECONDS } from './request';

/**
 * The request fields of docs/contract.md ("Notifier input"), typed. A
 * string or list may be a value the state machine computes at run time:
 * a JSONPath reference (`sfn.JsonPath.stringAt('$.x')`,
 * `sfn.JsonPath.listAt('$.drafts')`) in a JSONPath task, or a JSONata
 * expression (`'{% $draft.drafts %}'`) in a JSONata task. Literal values
 * are checked when the task is constructed, as the notifier would check
 * them; computed ones by the notifier at run time.
 *
 * The task token, the execution ARN and the state name are always passed
 * by the task itself.
 */
export interface ApprovalRequestProps {
  /** The channel ID to post in (C…, G…, D…), or a user ID (U…/W…) for a direct message. */
  readonly channel: string;
  /** Post the request as a reply in this thread (a message timestamp). */
  readonly threadTs?: string;
  /** Who may decide: user IDs (U…/W…) and user-group IDs (S…), at most 50. */
  readonly approvers: string[] | string;
  /** Who asks (U…/W…): this user may never decide the request, unless allowSelfApproval. */
  readonly requestedBy?: string;
  /** Plain text, at most 150 characters. */
  readonly title: string;
  /** mrkdwn, at most 3000 characters. */
  readonly summary?: string;
  /** Label → value, shown in this order, at most 10. */
  readonly fields?: Record<string, string>;
  /** Up to 5 drafts (2900 characters each); the approver picks exactly one. */
  readonly drafts?: string[] | string;
  /** Up to 10 distinct presets (75 characters each); enables "Request changes". */
  readonly revisionPresets?: string[] | string;
  /** Enables "Skip". */
  readonly allowSkip?: boolean;
  /**
   * How long the task waits for a decision: both the Task's TimeoutSeconds
   * and the request's timeoutSeconds (the deadline people see), so the
   * two cannot differ.
   */
  readonly timeout: Duration;
  /** How many distinct people must approve the same draft, 1–10 (default 1). */
  readonly quorum?: number;
  /** Lets the requester decide, and be a delegate (default false). */
  readonly allowSelfApproval?: boolean;
  /** An approval needs a comment ("approve"), a rejection a reason ("reject"). */
  readonly requireComment?: Array<'approve' | 'reject'>;
  /** false stops approvers handing the request to somebody else (default true). */
  readonly allowDelegation?: boolean;
  /**
   * When to remind who may still decide: durations after the request
   * ("2h", "90m") or shares of the time until the deadline ("50%"), at most
   * 10. Default ["50%", "90%"]; [] turns reminders off.
   */
  readonly reminders?: string[];
  /** Users and user groups who become approvers, and are mentioned, at escalateAfter. */
  readonly escalateTo?: string[];
  /** With escalateTo: a duration after the request or a share of the time until the deadline (default "75%"). */
  readonly escalateAfter?: string;
  /** Decided by the bot 2 minutes before the deadline: "reject", or "skip" (needs allowSkip); needs a timeout of at least 5 minutes. */
  readonly onDeadline?: 'reject' | 'skip';
  /**
   * While the request is open the bot sends SendTaskHeartbeat this often
   * (at least 60 s, below timeout). The Task's HeartbeatSeconds is then
   * set to twice this plus the bot's sweep interval (30 s), as
   * docs/contract.md advises.
   */
  readonly heartbeat?: Duration;
}

/** Props of SlackApprovalTask. */
export interface SlackApprovalTaskProps
  extends ApprovalRequestProps,
    Omit<sfn.TaskStateBaseProps, 'timeout' | 'taskTimeout' | 'heartbeat' | 'heartbeatTimeout' | 'integrationPattern' | 'credentials'> {
  /** The notifier: Approvals.notifier, or the NotifierFunctionArn output of the CloudFormation stack imported with lambda.Function.fromFunctionArn. */
  readonly notifier: lambda.IFunction;
  /**
   * Retry the notifier's SlackPostFailed (full jitter, up to about two
   * minutes) and StoreUnavailable as docs/contract.md recommends
   * (default true).
   */
  readonly retryNotifierErrors?: boolean;
}

/**
 * A Task state that asks people in Slack for a decision: it invokes the
 * notifier with lambda:invoke.waitForTaskToken, passing the task token,
 * the execution ARN and the state name the way the query language needs
 * ($$.Task.Token in JSONPath, $states.context.Task.Token in JSONata), and
 * waits until somebody decides or the timeout runs out.
 *
 * The execution continues with the decision (action approved, revise or
 * skip, the chosen draft, who decided; see docs/contract.md); a rejection
 * is the error Rejected, an approval nobody decided ApprovalExpired or
 * States.Timeout, an invalid request InvalidApprovalRequest. Catch them
 * with addCatch.
 *
 * It grants the state machine's role lambda:InvokeFunction on the
 * notifier, and nothing else.
 *
 * Throws an Error when a literal value would make the notifier refuse the
 * request, naming the field.
 */
export class SlackApprovalTask extends sfn.TaskStateBase {
  /** A SlackApprovalTask in a JSONPath state machine (or state). */
  static jsonPath(scope: Construct, id: string, props: SlackApprovalTaskProps): SlackApprovalTask {
    return new SlackApprovalTask(scope, id, { ...props, queryLanguage: sfn.QueryLanguage.JSON_PATH });
  }

  /** A SlackApprovalTask in a JSONata state machine (or state). */
  static jsonata(scope: Construct, id: string, props: SlackApprovalTaskProps): SlackApprovalTask {
    return new SlackApprovalTask(scope, id, { ...props, queryLanguage: sfn.QueryLanguage.JSONATA });
  }

  protected readonly taskMetrics?: sfn.TaskMetricsConfig;
  protected readonly taskPolicies?: iam.PolicyStatement[];
  private readonly props: SlackApprovalTaskProps;

  constructor(scope: Construct, id: string, props: SlackApprovalTaskProps) {
    const timeoutSeconds = props.timeout.toSeconds({ integral: false });
    const heartbeatSeconds = props.heartbeat?.toSeconds({ integral: false });
    try {
      checkRequest({ ...props, timeoutSeconds, heartbeatSeconds });
    } catch (e) {
      throw new Error(`SlackApprovalTask ${id}: ${(e as Error).message}`);
    }
    const taskHeartbeat = heartbeatSeconds === undefined ? undefined : 2 * heartbeatSeconds + SWEEP_INTERVAL_SECONDS;
    if (taskHeartbeat !== undefined && taskHeartbeat >= timeoutSeconds) {
      throw new Error(`SlackApprovalTask ${id}: the Task's HeartbeatSeconds would be ${taskHeartbeat} (twice heartbeat plus the bot's ${SWEEP_INTERVAL_SECONDS} s sweep), which must be less than timeout (${timeoutSeconds} s): shorten heartbeat or lengthen timeout`);
    }
    const { timeout: _timeout, heartbeat: _heartbeat, ...stateProps } = props;
    super(scope, id, {
      ...stateProps,
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      taskTimeout: sfn.Timeout.duration(props.timeout),
      heartbeatTimeout: taskHeartbeat === undefined ? undefined : sfn.Timeout.duration(Duration.seconds(taskHeartbeat)),
    });
    this.props = props;
    this.taskPolicies = [
      new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [props.notifier.functionArn] }),
    ];
    this.taskMetrics = {
      metricPrefixSingular: 'LambdaFunction',
      metricPrefixPlural: 'LambdaFunctions',
      metricDimensions: { LambdaFunctionArn: props.notifier.functionArn },
    };
    if (props.retryNotifierErrors ?? true) {
      this.addRetry({
        errors: ['SlackPostFailed'],
        interval: Duration.seconds(2),
        maxAttempts: 6,
        backoffRate: 2,
        maxDelay: Duration.seconds(60),
        jitterStrategy: sfn.JitterType.FULL,
      });
      this.addRetry({ errors: ['StoreUnavailable'], interval: Duration.seconds(2), maxAttempts: 3, backoffRate: 2 });
    }
  }

  /** The notifier's payload, in the state's query language. */
  private payload(queryLanguage: sfn.QueryLanguage): Record<string, unknown> {
    const p = this.props;
    const jsonata = queryLanguage === sfn.QueryLanguage.JSONATA;
    const fields: Array<[string, unknown]> = [
      ['channel', p.channel],
      ['threadTs', p.threadTs],
      ['approvers', p.approvers],
      ['requestedBy', p.requestedBy],
      ['title', p.title],
      ['summary', p.summary],
      ['fields', p.fields],
      ['drafts', p.drafts],
      ['revisionPresets', p.revisionPresets],
      ['allowSkip', p.allowSkip],
      ['timeoutSeconds', p.timeout.toSeconds()],
      ['quorum', p.quorum],
      ['allowSelfApproval', p.allowSelfApproval],
      ['requireComment', p.requireComment],
      ['allowDelegation', p.allowDelegation],
      ['reminders', p.reminders],
      ['escalateTo', p.escalateTo],
      ['escalateAfter', p.escalateAfter],
      ['onDeadline', p.onDeadline],
      ['heartbeatSeconds', p.heartbeat?.toSeconds()],
    ];
    for (const [key, value] of fields) {
      checkLanguage(this.node.id, key, value, jsonata);
    }
    const payload: Record<string, unknown> = jsonata
      ? {
        taskToken: '{% $states.context.Task.Token %}',
        executionArn: '{% $states.context.Execution.Id %}',
        stateName: '{% $states.context.State.Name %}',
      }
      : {
        taskToken: sfn.JsonPath.taskToken,
        executionArn: sfn.JsonPath.executionId,
        stateName: sfn.JsonPath.stateName,
      };
    for (const [key, value] of fields) {
      if (value !== undefined) {
        payload[key] = value;
      }
    }
    return payload;
  }

  protected _renderTask(topLevelQueryLanguage?: sfn.QueryLanguage): any {
    const queryLanguage = this.props.queryLanguage ?? topLevelQueryLanguage ?? sfn.QueryLanguage.JSON_PATH;
    return {
      Resource: `arn:${Stack.of(this).partition}:states:::lambda:invoke.waitForTaskToken`,
      ...this._renderParametersOrArguments(
        { FunctionName: this.props.notifier.functionArn, Payload: this.payload(queryLanguage) },
        queryLanguage,
      ),
    };
  }
}

// checkLanguage refuses a run-time value written for the other query
// language: Step Functions would pass it on as text.
function checkLanguage(id: string, key: string, value: unknown, jsonata: boolean): void {
  const values = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? Object.values(value) : [value];
  for (const v of values) {
    if (typeof v !== 'string') {
      continue;
    }
    if (jsonata && sfn.JsonPath.isEncodedJsonPath(v)) {
      throw new Error(`SlackApprovalTask ${id}: ${key} is a JsonPath reference in a JSONata state; write a '{% … %}' expression instead`);
    }
    if (!jsonata && isJsonata(v)) {
      throw new Error(`SlackApprovalTask ${id}: ${key} is a JSONata expression in a JSONPath state; use sfn.JsonPath.stringAt(...) (or set queryLanguage JSONATA)`);
    }
  }
}
