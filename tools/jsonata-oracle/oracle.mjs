// Evaluates JSONata conformance cases with jsonata-js 2.0.6 (the version AWS
// Step Functions runs) and writes what it answered next to them.
//
//   node oracle.mjs DIR [NAME.cases.json ...]
//
// For every DIR/*.cases.json (or only the NAMEs given) (an array of {"expr", "input"?, "bindings"?,
// "note"?}) it writes DIR/*.golden.json: the same cases, each with exactly one
// of "result" (a JSON value), "undefined": true, "function": true (the result
// is a function) or "error": {"code", "message", "position"?, "token"?}.
// The clock is fixed at NOW_MS so $now and $millis are reproducible, and
// Math.random is a fixed sequence; $eval is removed, as on AWS.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

// jsonata-js keeps state on its shared built-in functions between
// evaluations (the last call's name and position), so an error message can
// depend on the cases run before it. Each case gets a fresh copy of the
// module instead.
const require = createRequire(import.meta.url);
function freshJsonata() {
  delete require.cache[require.resolve('jsonata')];
  return require('jsonata');
}

export const NOW_MS = 1767225600123; // 2026-01-01T00:00:00.123Z

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node oracle.mjs DIR [NAME.cases.json ...]');
  process.exit(2);
}

const RealDate = Date;
globalThis.Date = class extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(NOW_MS);
    else super(...args);
  }
  static now() { return NOW_MS; }
};

let seed = 0;
Math.random = () => {
  seed = (seed % 10) + 1;
  return seed / 10 - 0.05; // 0.05, 0.15, … 0.95, then again
};

function containsFunction(v) {
  if (typeof v === 'function') return true;
  if (v && typeof v === 'object') {
    if (v._jsonata_lambda || v._jsonata_function) return true;
    return Object.values(v).some(containsFunction);
  }
  return false;
}

async function run(c) {
  seed = 0;
  let expr;
  try {
    expr = freshJsonata()(c.expr);
    expr.registerFunction('eval', () => { throw { code: 'T1006', message: 'Attempted to invoke a non-function' }; });
    // Copies, so an expression that changes its input cannot change the case
    // written next to the answer.
    const out = await expr.evaluate(structuredClone(c.input), structuredClone(c.bindings || {}));
    if (out === undefined) return { undefined: true };
    if (containsFunction(out)) return { function: true };
    if (typeof out === 'number' && !Number.isFinite(out)) return { error: { code: 'NONFINITE', message: String(out) } };
    return { result: JSON.parse(JSON.stringify(out)) };
  } catch (e) {
    const err = { code: e.code || 'NOCODE', message: e.message || String(e) };
    if (e.position !== undefined) err.position = e.position;
    if (e.token !== undefined) err.token = String(e.token);
    return { error: err };
  }
}

const only = process.argv.slice(3).map(n => path.basename(n));
const names = fs.readdirSync(dir).filter(n => n.endsWith('.cases.json') && (only.length === 0 || only.includes(n))).sort();
for (const name of names) {
  const cases = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  const golden = [];
  for (const c of cases) golden.push({ ...c, ...(await run(c)) });
  const out = path.join(dir, name.replace(/\.cases\.json$/, '.golden.json'));
  fs.writeFileSync(out, JSON.stringify(golden, null, 1) + '\n');
  console.log(`${out}: ${golden.length} cases`);
}
