import { ArnComponents, Fn, Lazy, Names, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { Definition, derivePermissions, readDefinition } from './definition';
import { acceptRoleDependsOn } from './lint';
import { CHANNEL_ID, GROUP_ID, isJsonata, MAX_APPROVERS, quote, USER_ID } from './request';

/** What every shipped workflow is deployed with. */
export interface ShippedWorkflowProps {
  /**
   * The directory holding the shipped definitions: make package's
   * dist/definitions, or workflow/definitions in a checkout (make package
   * copies them unedited). The definition is read at synth time and
   * deployed as it is, its ${…} placeholders filled by
   * DefinitionSubstitutions, as the CloudFormation template deploys it.
   */
  readonly definitions: string;
  /**
   * The notifier (the NotifierFunctionArn substitution): Approvals.notifier,
   * or the template's NotifierFunctionArn output imported with
   * lambda.Function.fromFunctionArn.
   */
  readonly notifier: lambda.IFunction;
  /** The Slack channel ID the requests are posted in (Channel): C…, G… or D…, or a user ID (U…/W…) for direct messages. */
  readonly channel: string;
  /** Who may decide (Approvers): 1 to 50 user IDs (U…/W…) and user-group IDs (S…). */
  readonly approvers: string[];
  /**
   * The state machine's name: up to 80 letters, digits, hyphens and
   * underscores (default: one made from the construct's path, unique in
   * the app). Its log group is /aws/vendedlogs/states/NAME.
   */
  readonly stateMachineName?: string;
  /** What executions log (default ERROR, as the template's WorkflowLogLevel). */
  readonly logLevel?: sfn.LogLevel;
  /** Whether log lines carry the states' input and output (default false: an execution's data may hold unpublished drafts). */
  readonly includeExecutionData?: boolean;
  /** How long the log group keeps logs (default one month). */
  readonly logRetention?: logs.RetentionDays;
  /** A customer managed key for the log group (default: CloudWatch Logs' own encryption). */
  readonly encryptionKey?: kms.IKey;
}

/** What a workflow construct deploys its definition with. */
export interface WorkflowWiring {
  /** The definition's file name in ShippedWorkflowProps.definitions. */
  readonly file: string;
  /** The DefinitionSubstitutions besides Channel, Approvers and NotifierFunctionArn. */
  readonly values: Record<string, string>;
  /** The roles ecs:runTask.sync passes to ECS (iam:PassRole). */
  readonly passRoles?: string[];
}

const STATE_MACHINE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
const FUNCTION_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:[0-9]{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9_$-]{1,128})?$/;

/**
 * A shipped workflow (workflow/definitions/*.asl.json) as the
 * CloudFormation template deploys it: a STANDARD state machine running
 * the file unedited with DefinitionSubstitutions, logging to a log group
 * of its own, with a role that Step Functions alone may assume (in this
 * account) and that allows exactly what the definition's states call,
 * derived from the definition at synth time.
 *
 * Give the state machine to Approvals.addStateMachine when you list the
 * state machines the bot serves.
 */
export abstract class ShippedWorkflow extends Construct {
  /** The state machine. */
  readonly stateMachine: sfn.StateMachine;
  /** Its role: the statements derived from the definition, and the log delivery ones. */
  readonly role: iam.Role;
  /** Its log group, /aws/vendedlogs/states/NAME. */
  readonly logGroup: logs.LogGroup;
  /** The definition as read, before substitution. */
  readonly definition: Definition;

  /**
   * Checks the common props and wire's (which throws an Error for a prop
   * of its own it refuses), reads the definition and derives the role,
   * all before the construct joins the tree, so that a refused prop adds
   * nothing to it; throws an Error prefixed with kind and id.
   */
  protected constructor(scope: Construct, id: string, kind: string, props: ShippedWorkflowProps, wire: () => WorkflowWiring) {
    const stack = Stack.of(scope);
    // The default name is made from the construct's path, once it has one.
    let defaultName = '';
    const stateMachineName = props.stateMachineName ?? Lazy.string({ produce: () => defaultName });
    let definition: Definition;
    let values: Record<string, string>;
    let statements: iam.PolicyStatement[];
    try {
      if (typeof props.definitions !== 'string' || props.definitions.trim() === '') {
        throw new Error('definitions is required: the directory make package fills (dist/definitions), or the repository\'s workflow/definitions');
      }
      if (!Token.isUnresolved(stateMachineName) && !STATE_MACHINE_NAME.test(stateMachineName)) {
        throw new Error(`stateMachineName ${quote(stateMachineName)} must be 1 to 80 letters, digits, hyphens and underscores`);
      }
      const wiring = wire();
      const all: Record<string, string> = {
        Channel: channelValue(props.channel),
        Approvers: approversValue('approvers', props.approvers),
        NotifierFunctionArn: functionArnOf('notifier', props.notifier),
        ...wiring.values,
      };
      definition = readDefinition(props.definitions, wiring.file);
      checkPlaceholders(definition, Object.keys(all));
      statements = derivePermissions(definition, {
        value: (name) => all[name],
        arn: (c: ArnComponents) => stack.formatArn(c),
        stateMachineName,
        passRoles: wiring.passRoles ?? [],
      }).map((p) => new iam.PolicyStatement({ actions: p.actions, resources: p.resources }));
      values = all;
    } catch (e) {
      throw new Error(`${kind} ${id}: ${(e as Error).message}`);
    }
    super(scope, id);
    defaultName = Names.uniqueResourceName(this, { maxLength: 80, separator: '-' });
    this.definition = definition;

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      // /aws/vendedlogs/ keeps the log resource policy Step Functions writes small.
      logGroupName: `/aws/vendedlogs/states/${stateMachineName}`,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      encryptionKey: props.encryptionKey,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('states.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': stack.account },
      }),
    });
    for (const s of statements) {
      this.role.addToPolicy(s);
    }
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      // An asset, as the template's DefinitionS3Location: the file as it is.
      definitionBody: sfn.DefinitionBody.fromFile(definition.path),
      definitionSubstitutions: values,
      role: this.role,
      logs: {
        destination: this.logGroup,
        level: props.logLevel ?? sfn.LogLevel.ERROR,
        includeExecutionData: props.includeExecutionData ?? false,
      },
    });
    acceptRoleDependsOn(this.stateMachine);
  }
}

// checkPlaceholders refuses a definition whose placeholders are not the
// ones the construct fills: one left unfilled would reach Step Functions
// as text, and one the file lacks means the file is not the one the
// construct was written for.
function checkPlaceholders(def: Definition, names: string[]): void {
  const unfilled = def.placeholders.filter((p) => !names.includes(p));
  if (unfilled.length > 0) {
    throw new Error(`${def.file} has ${unfilled.map((p) => '${' + p + '}').join(', ')}, which this construct does not fill: is the file from a newer build than this library?`);
  }
  const missing = names.filter((n) => !def.placeholders.includes(n)).sort();
  if (missing.length > 0) {
    throw new Error(`${def.file} has no ${missing.map((p) => '${' + p + '}').join(', ')}: is it the shipped definition?`);
  }
}

/** The Channel substitution: a channel ID, or a user ID for direct messages. */
function channelValue(channel: string): string {
  if (typeof channel !== 'string' || channel.trim() === '') {
    throw new Error('channel is required (a channel ID such as C0123ABCD)');
  }
  if (Token.isUnresolved(channel)) {
    return channel;
  }
  if (!CHANNEL_ID.test(channel) && !USER_ID.test(channel)) {
    throw new Error(`channel ${quote(channel)} is not a Slack channel ID (C…, G… or D…) nor a user ID (U…/W…, for a direct message); use the ID, not the name`);
  }
  return channel;
}

/**
 * A list of user and user-group IDs as the definitions take it: joined
 * with commas, no spaces. Who may decide is part of the deployment, so a
 * path or expression is refused.
 */
export function approversValue(key: string, ids: string[]): string {
  if (!Array.isArray(ids)) {
    throw new Error(`${key} must be a list of user IDs (U…/W…) and user-group IDs (S…)`);
  }
  if (Token.isUnresolved(ids)) {
    return Fn.join(',', ids);
  }
  if (ids.length === 0) {
    throw new Error(`${key} is required: at least one user ID (U…/W…) or user-group ID (S…)`);
  }
  if (ids.length > MAX_APPROVERS) {
    throw new Error(`${key} has ${ids.length} entries; at most ${MAX_APPROVERS} are allowed`);
  }
  for (const id of ids) {
    if (Token.isUnresolved(id)) {
      continue;
    }
    if (typeof id === 'string' && (isJsonata(id) || id.trim().startsWith('$'))) {
      throw new Error(`${key} holds ${quote(id)}, a path or expression: who may decide is fixed when the workflow is deployed`);
    }
    if (typeof id !== 'string' || (!USER_ID.test(id) && !GROUP_ID.test(id))) {
      throw new Error(`${key} entry ${quote(String(id))} is neither a user ID (U…/W…) nor a user-group ID (S…)`);
    }
  }
  return ids.some((id) => Token.isUnresolved(id)) ? Fn.join(',', ids) : ids.join(',');
}

/** A function's ARN, checked when it is written out. */
export function functionArnOf(key: string, fn: lambda.IFunction | undefined): string {
  if (!fn) {
    throw new Error(`${key} is required`);
  }
  const arn = fn.functionArn;
  if (!Token.isUnresolved(arn) && !FUNCTION_ARN.test(arn)) {
    throw new Error(`${key}'s ARN ${JSON.stringify(arn)} is not a Lambda function ARN (arn:aws:lambda:REGION:ACCOUNT:function:NAME, optionally :VERSION or :ALIAS)`);
  }
  return arn;
}
