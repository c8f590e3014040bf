// Reading deploy/cloudformation.yaml and evaluating the intrinsic
// functions of it and of synthesised templates, so that the constructs'
// resources can be compared with the template's for the same values.

import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { CfnInclude } from 'aws-cdk-lib/cloudformation-include';

// Relative to dist/test, where the compiled tests run.
const TEMPLATE = path.join(__dirname, '..', '..', '..', 'cloudformation.yaml');

/** The repository's shipped definitions, which make package copies to dist/definitions. */
export const DEFINITIONS = path.join(__dirname, '..', '..', '..', '..', 'workflow', 'definitions');

/** A value of the template's parameters and pseudo parameters, or an attribute ("Resource.Arn"). */
export type Refs = Record<string, string | number | string[]>;

/** What evaluate resolves references and conditions with. */
export interface Env {
  readonly refs: Refs;
  readonly conditions?: Record<string, boolean>;
}

let included: CfnInclude | undefined;

/**
 * A resource of deploy/cloudformation.yaml as JSON, its intrinsic
 * functions unevaluated. The template is read once, without the CDK's
 * own template validation: cfn-lint checks it (make lint).
 */
export function templateResource(logicalId: string): any {
  if (!included) {
    const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Template');
    included = new CfnInclude(stack, 'Template', { templateFile: TEMPLATE });
  }
  const resource = included.getResource(logicalId);
  const json = Stack.of(resource).resolve(resource._toCloudFormation()) as { Resources: Record<string, unknown> };
  return json.Resources[logicalId];
}

/**
 * Evaluates the intrinsic functions in x (Ref, Fn::GetAtt, Fn::Sub,
 * Fn::Join, Fn::Split, Fn::Select, Fn::If) with env. A reference or
 * condition env does not know, or another function, throws: a comparison
 * must never pass by skipping what it does not understand.
 */
export function evaluate(x: unknown, env: Env): any {
  if (Array.isArray(x)) {
    return x.map((v) => evaluate(v, env)).filter((v) => v !== undefined);
  }
  if (typeof x !== 'object' || x === null) {
    return x;
  }
  const entries = Object.entries(x as Record<string, unknown>);
  if (entries.length === 1 && (entries[0][0] === 'Ref' || entries[0][0].startsWith('Fn::'))) {
    const [fn, arg] = entries[0];
    return call(fn, arg, env);
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, evaluate(v, env)]).filter(([, v]) => v !== undefined));
}

// lookup is a reference's value; AWS::NoValue is undefined, which removes
// the property or list entry holding it.
function lookup(name: string, env: Env): string | number | string[] | undefined {
  if (name === 'AWS::NoValue') {
    return undefined;
  }
  const v = env.refs[name];
  if (v === undefined) {
    throw new Error(`no value for ${name}`);
  }
  return v;
}

function call(fn: string, arg: any, env: Env): unknown {
  switch (fn) {
    case 'Ref':
      return lookup(arg, env);
    case 'Fn::GetAtt':
      return lookup(Array.isArray(arg) ? arg.join('.') : arg, env);
    case 'Fn::Sub': {
      const [text, vars] = typeof arg === 'string' ? [arg, {}] : [arg[0], evaluate(arg[1], env)];
      return (text as string).replace(/\$\{(!?)([^}]+)\}/g, (_m, bang: string, name: string) => {
        if (bang) {
          return '${' + name + '}';
        }
        const v = vars[name] ?? lookup(name.trim(), env);
        if (typeof v !== 'string' && typeof v !== 'number') {
          throw new Error(`Fn::Sub of ${name}, which is not a string`);
        }
        return String(v);
      });
    }
    case 'Fn::Join': {
      const [sep, list] = arg;
      return (evaluate(list, env) as unknown[]).flat().join(sep);
    }
    case 'Fn::Split': {
      const [sep, text] = arg;
      return (evaluate(text, env) as string).split(sep);
    }
    case 'Fn::Select': {
      const [i, list] = arg;
      return (evaluate(list, env) as unknown[])[Number(evaluate(i, env))];
    }
    case 'Fn::If': {
      const [name, then, otherwise] = arg;
      const holds = env.conditions?.[name];
      if (holds === undefined) {
        throw new Error(`no value for the condition ${name}`);
      }
      return evaluate(holds ? then : otherwise, env);
    }
    default:
      throw new Error(`${fn} is not evaluated here`);
  }
}

/**
 * The statements of policy documents as "Allow action on resource" lines,
 * evaluated and sorted: the form in which two roles' permissions compare
 * regardless of how they group actions and resources into statements.
 */
export function permissions(documents: any[], env: Env): string[] {
  const out: string[] = [];
  for (const doc of documents) {
    // Evaluated first: a statement may be an Fn::If (on HasKmsKey, say).
    for (const s of evaluate(doc.Statement, env)) {
      if (s.Condition !== undefined || s.NotAction !== undefined || s.NotResource !== undefined) {
        throw new Error(`a statement this comparison does not read: ${JSON.stringify(s)}`);
      }
      const resources = [evaluate(s.Resource, env)].flat(2);
      for (const a of [s.Action].flat()) {
        for (const r of resources) {
          out.push(`${s.Effect} ${a} on ${r}`);
        }
      }
    }
  }
  return out.sort();
}
