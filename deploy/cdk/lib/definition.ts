// The shipped definitions (workflow/definitions/*.asl.json, which make
// package copies unedited to dist/definitions), and what a state machine
// running one must be allowed to do: derived from its states by the rules
// deploy/workflows_test.go checks the CloudFormation template's workflow
// roles with, so that both deploy the same statements.

import * as fs from 'fs';
import * as path from 'path';
import { ArnComponents, ArnFormat, Fn, Token } from 'aws-cdk-lib';

// A ${Name} placeholder, as CloudFormation's DefinitionSubstitutions fill them.
const PLACEHOLDER = /\$\{([A-Za-z0-9_.:-]+)\}/g;
const PLACEHOLDER_PART = /(\$\{[A-Za-z0-9_.:-]+\})/;

/** A shipped definition file, read as it is. */
export interface Definition {
  readonly file: string;
  /** Where it was read from. */
  readonly path: string;
  /** The file's text, unedited: what the state machine is deployed with. */
  readonly text: string;
  readonly states: Record<string, unknown>;
  /** The ${Name} placeholders in the text, sorted, each once. */
  readonly placeholders: string[];
}

/** Reads file from dir; throws an Error naming the file when it is missing or no state machine definition. */
export function readDefinition(dir: string, file: string): Definition {
  const where = path.join(dir, file);
  let text: string;
  try {
    text = fs.readFileSync(where, 'utf8');
  } catch (e) {
    throw new Error(`definitions: cannot read ${where} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give the directory make package fills (dist/definitions) or the repository's workflow/definitions`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`definitions: ${where} is not JSON (${(e as Error).message})`);
  }
  const states = (doc as { States?: unknown } | null)?.States;
  if (typeof states !== 'object' || states === null || Array.isArray(states)) {
    throw new Error(`definitions: ${where} is not a state machine definition (it has no States)`);
  }
  const placeholders = [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]))].sort();
  return { file, path: where, text, states: states as Record<string, unknown>, placeholders };
}

/** What the derived statements name, at deployment. */
export interface Deployment {
  /** The value a placeholder is substituted with (a CloudFormation token or a literal). */
  value(name: string): string;
  /** An ARN in the stack's partition, Region and account (Stack.formatArn). */
  arn(components: ArnComponents): string;
  /** The state machine's name: its distributed Maps start its own executions. */
  readonly stateMachineName: string;
  /** The roles ecs:runTask.sync passes to ECS: the task definition's task and execution roles. */
  readonly passRoles: string[];
}

/** Actions allowed on resources: one statement of the role. */
export interface Permission {
  readonly actions: string[];
  readonly resources: string[];
}

// The actions the developer guide lists for a ResultWriter, on its prefix.
const RESULT_WRITER_ACTIONS = ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'];

interface Args {
  readonly FunctionName?: unknown;
  readonly Bucket?: unknown;
  readonly Prefix?: unknown;
  readonly Cluster?: unknown;
  readonly TaskDefinition?: unknown;
}

interface Io {
  readonly Resource?: string;
  readonly Arguments?: Args;
  readonly Parameters?: Args;
}

interface State {
  readonly Type?: string;
  readonly Resource?: string;
  readonly Arguments?: Args;
  readonly Parameters?: Args;
  readonly Branches?: Array<{ States: Record<string, unknown> }>;
  readonly Iterator?: { States: Record<string, unknown> };
  readonly ItemProcessor?: { ProcessorConfig?: { Mode?: string }; States: Record<string, unknown> };
  readonly ItemReader?: Io;
  readonly ResultWriter?: Io;
}

/**
 * The statements a state machine running def needs, and no more:
 * lambda:InvokeFunction on each function a Task invokes; for a
 * distributed Map, starting the state machine's own executions and
 * describing and stopping them (execution:NAME/*); for an ItemReader, a
 * ResultWriter and an aws-sdk:s3:getObject Task, the S3 actions AWS's
 * developer guide lists on the bucket (and prefix) they name; for
 * ecs:runTask.sync, starting the task definition, describing and stopping
 * the cluster's tasks, the EventBridge rule Step Functions manages, and
 * passing the task's roles. Logging is the state machine's own (the CDK
 * adds those statements with its log destination).
 *
 * Throws an Error for a Task resource, reader or writer without a rule
 * here, and for a function, bucket, cluster or task definition that is
 * computed at run time (its permission cannot be derived).
 */
export function derivePermissions(def: Definition, d: Deployment): Permission[] {
  const out: Array<{ actions: string[]; resources: string[] }> = [];
  const allow = (actions: string[], resource: string) => {
    let s = out.find((p) => p.actions.join() === actions.join());
    if (!s) {
      s = { actions, resources: [] };
      out.push(s);
    }
    if (!s.resources.includes(resource)) {
      s.resources.push(resource);
    }
  };
  const objects = (bucket: string, prefix?: string) => d.arn({
    service: 's3', region: '', account: '', resource: bucket,
    resourceName: prefix === undefined ? '*' : `${prefix.replace(/\/+$/, '')}/*`,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
  const field = (state: string, what: string, ...values: unknown[]) => written(def.file, state, what, values.find((v) => v !== undefined), d);

  const walk = (states: Record<string, unknown>) => {
    for (const [name, raw] of Object.entries(states)) {
      const s = raw as State;
      if (s.Type === 'Task') {
        switch (s.Resource) {
          case 'arn:aws:states:::lambda:invoke':
          case 'arn:aws:states:::lambda:invoke.waitForTaskToken': {
            const fn = field(name, 'FunctionName', s.Arguments?.FunctionName, s.Parameters?.FunctionName);
            if (!Token.isUnresolved(fn) && !fn.startsWith('arn:')) {
              throw new Error(`${def.file}: state ${name} invokes ${JSON.stringify(fn)}, not a function ARN`);
            }
            allow(['lambda:InvokeFunction'], fn);
            break;
          }
          case 'arn:aws:states:::aws-sdk:s3:getObject':
            allow(['s3:GetObject'], objects(field(name, 'Bucket', s.Arguments?.Bucket, s.Parameters?.Bucket)));
            break;
          case 'arn:aws:states:::ecs:runTask.sync': {
            const taskDefinition = field(name, 'TaskDefinition', s.Arguments?.TaskDefinition, s.Parameters?.TaskDefinition);
            const cluster = field(name, 'Cluster', s.Arguments?.Cluster, s.Parameters?.Cluster);
            allow(['ecs:RunTask'], taskDefinition);
            allow(['ecs:StopTask', 'ecs:DescribeTasks'], d.arn({ service: 'ecs', resource: 'task', resourceName: `${cluster}/*` }));
            allow(['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
              d.arn({ service: 'events', resource: 'rule', resourceName: 'StepFunctionsGetEventsForECSTaskRule' }));
            if (d.passRoles.length === 0) {
              throw new Error(`${def.file}: state ${name} starts ECS tasks, but no task role is given to pass`);
            }
            for (const role of d.passRoles) {
              allow(['iam:PassRole'], role);
            }
            break;
          }
          default:
            throw new Error(`${def.file}: state ${name} calls ${s.Resource}, for which this library has no IAM rule: it cannot deploy this definition`);
        }
      }
      const reader = s.ItemReader;
      if (reader) {
        const bucket = field(name, 'ItemReader\'s Bucket', reader.Arguments?.Bucket, reader.Parameters?.Bucket);
        switch (reader.Resource) {
          case 'arn:aws:states:::s3:getObject':
            allow(['s3:GetObject'], objects(bucket));
            break;
          case 'arn:aws:states:::s3:listObjectsV2':
            allow(['s3:ListBucket'], d.arn({ service: 's3', region: '', account: '', resource: bucket }));
            break;
          default:
            throw new Error(`${def.file}: state ${name} reads items with ${reader.Resource}, for which this library has no IAM rule: it cannot deploy this definition`);
        }
      }
      const writer = s.ResultWriter;
      if (writer?.Resource) {
        const bucket = field(name, 'ResultWriter\'s Bucket', writer.Arguments?.Bucket, writer.Parameters?.Bucket);
        const prefix = field(name, 'ResultWriter\'s Prefix', writer.Arguments?.Prefix, writer.Parameters?.Prefix);
        allow(RESULT_WRITER_ACTIONS, objects(bucket, prefix));
      }
      for (const b of s.Branches ?? []) {
        walk(b.States);
      }
      if (s.Iterator) {
        walk(s.Iterator.States);
      }
      if (s.ItemProcessor) {
        if (s.ItemProcessor.ProcessorConfig?.Mode === 'DISTRIBUTED') {
          allow(['states:StartExecution'], d.arn({ service: 'states', resource: 'stateMachine', resourceName: d.stateMachineName, arnFormat: ArnFormat.COLON_RESOURCE_NAME }));
          allow(['states:DescribeExecution', 'states:StopExecution'],
            d.arn({ service: 'states', resource: 'execution', resourceName: `${d.stateMachineName}/*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }));
        }
        walk(s.ItemProcessor.States);
      }
    }
  };
  walk(def.states);
  return out;
}

// written is a field's value with its placeholders filled: a field the
// permission is derived from must be written out in the definition, not
// computed by a JSONata expression or a JSONPath reference ("Key.$").
function written(file: string, state: string, what: string, v: unknown, d: Deployment): string {
  if (typeof v !== 'string' || v.trim() === '' || v.includes('{%') || v.trim().startsWith('$.')) {
    throw new Error(`${file}: state ${state}: ${what} ${JSON.stringify(v)} is not written out, so its permission cannot be derived`);
  }
  const parts = v.split(PLACEHOLDER_PART).filter((p) => p !== '').map((p) => {
    const m = /^\$\{(.+)\}$/.exec(p);
    return m ? d.value(m[1]) : p;
  });
  if (parts.length === 1 || !parts.some((p) => Token.isUnresolved(p))) {
    return parts.join('');
  }
  return Fn.join('', parts);
}
