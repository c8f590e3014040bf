// Synth-time checks of an approval request's literal values: the rules of
// workflow/request.go and workflow/policy.go (docs/contract.md, "Notifier
// input"), so that a request the notifier would refuse with
// InvalidApprovalRequest fails `cdk synth` instead. Values the state
// machine computes at run time (a JSONPath reference, a JSONata
// expression, a CloudFormation token) are left to the notifier.

import { Token } from 'aws-cdk-lib';

// Limits, as in workflow/request.go and workflow/policy.go.
export const MAX_TITLE = 150;
export const MAX_SUMMARY = 3000;
export const MAX_FIELDS = 10;
export const MAX_FIELD_LABEL = 100;
export const MAX_FIELD_VALUE = 1900;
export const MAX_DRAFTS = 5;
export const MAX_DRAFT = 2900;
export const MAX_TOTAL_TEXT = 12000;
export const MAX_PRESETS = 10;
export const MAX_PRESET = 75;
export const MAX_APPROVERS = 50;
export const MAX_TIMEOUT_SECONDS = 99999999;
export const MAX_QUORUM = 10;
export const MAX_REMINDERS = 10;
export const MIN_ON_DEADLINE_TIMEOUT_SECONDS = 300;
export const ON_DEADLINE_LEAD_SECONDS = 120;
export const MIN_HEARTBEAT_SECONDS = 60;
// The bot's sweep interval (APPROVALS_SWEEP_INTERVAL's default): a
// heartbeat is sent at most one sweep late.
export const SWEEP_INTERVAL_SECONDS = 30;

export const USER_ID = /^[UW][A-Z0-9]{2,20}$/;
export const GROUP_ID = /^S[A-Z0-9]{2,20}$/;
export const CHANNEL_ID = /^[CGD][A-Z0-9]{2,20}$/;
const TS = /^[0-9]{1,12}\.[0-9]{1,8}$/;
const INTRINSIC_CALL = /^States\.[A-Za-z0-9]+\s*\(/;
const PERCENT = /^([0-9]{1,2})(?:\.([0-9]{1,2}))?$/;

/** The request's values after the task's defaults, as the checks see them. */
export interface RequestValues {
  readonly channel: string;
  readonly threadTs?: string;
  readonly approvers: string[] | string;
  readonly requestedBy?: string;
  readonly title: string;
  readonly summary?: string;
  readonly fields?: Record<string, string>;
  readonly drafts?: string[] | string;
  readonly revisionPresets?: string[] | string;
  readonly allowSkip?: boolean;
  readonly timeoutSeconds: number;
  readonly quorum?: number;
  readonly allowSelfApproval?: boolean;
  readonly requireComment?: string[];
  readonly allowDelegation?: boolean;
  readonly reminders?: string[];
  readonly escalateTo?: string[];
  readonly escalateAfter?: string;
  readonly onDeadline?: string;
  readonly heartbeatSeconds?: number;
}

/** Whether a value is computed at run time or deploy time, so not checked here. */
export function isDynamic(v: unknown): boolean {
  if (typeof v === 'string') {
    return Token.isUnresolved(v) || isJsonata(v);
  }
  return Array.isArray(v) ? Token.isUnresolved(v) : false;
}

/** Whether s is a JSONata expression, {% … %}. */
export function isJsonata(s: string): boolean {
  const t = s.trim();
  return t.startsWith('{%') && t.endsWith('%}');
}

// looksUnresolved is workflow.unresolved: text Step Functions would pass on
// as it is, a path or expression where an ID belongs.
function looksUnresolved(s: string): boolean {
  const t = s.trim();
  return t.startsWith('$') || t.includes('{%') || t.includes('%}') || INTRINSIC_CALL.test(t);
}

export function quote(s: string): string {
  return s.length > 40 ? `(a value of ${s.length} characters)` : JSON.stringify(s);
}

function chars(s: string): number {
  return [...s].length;
}

// An ID field holding a literal path: the same mistake as a JSONPath key
// without ".$", caught before deployment.
function checkIdLiteral(key: string, v: string): void {
  if (looksUnresolved(v)) {
    throw new Error(`${key} holds ${quote(v)}, a path or expression written as text: use sfn.JsonPath.stringAt(...) in a JSONPath task, or a '{% … %}' expression in a JSONata task`);
  }
}

function checkPeople(key: string, ids: string[], entry: string): void {
  if (ids.length > MAX_APPROVERS) {
    throw new Error(`${key} has ${ids.length} entries; at most ${MAX_APPROVERS} are allowed`);
  }
  for (const id of ids) {
    if (isDynamic(id)) {
      continue;
    }
    checkIdLiteral(key, id);
    if (!USER_ID.test(id) && !GROUP_ID.test(id)) {
      throw new Error(`${entry} ${quote(id)} is neither a user ID (U…/W…) nor a user-group ID (S…)`);
    }
  }
}

interface Offset {
  readonly afterSeconds: number;
  readonly basisPoints: number; // 1..9999 for a share; 0 for a duration
}

// parseOffset reads "50%" or a Go duration ("2h", "90m", "1h30m", "45s").
function parseOffset(s: string): Offset | string {
  if (s.endsWith('%')) {
    const m = PERCENT.exec(s.slice(0, -1));
    const bp = m ? Number(m[1]) * 100 + Number(((m[2] ?? '') + '00').slice(0, 2)) : 0;
    if (bp <= 0 || bp >= 10000) {
      return 'is not a percentage above 0% and below 100% with at most two decimals, such as 50%';
    }
    return { afterSeconds: 0, basisPoints: bp };
  }
  const seconds = parseGoDuration(s);
  if (seconds === undefined || seconds <= 0) {
    return 'is neither a duration after the request such as 2h or 90m nor a percentage of the time until the deadline such as 50%';
  }
  return { afterSeconds: seconds, basisPoints: 0 };
}

const GO_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

// parseGoDuration reads a Go time.ParseDuration string, in seconds.
export function parseGoDuration(s: string): number | undefined {
  const re = /([0-9]*\.?[0-9]+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  if (s === '') {
    return undefined;
  }
  while (at < s.length) {
    re.lastIndex = at;
    const m = re.exec(s);
    if (!m) {
      return undefined;
    }
    total += Number(m[1]) * GO_UNITS[m[2]];
    at = re.lastIndex;
  }
  return total;
}

function checkBeforeDeadline(field: string, value: string, o: Offset, timeoutSeconds: number): void {
  if (o.basisPoints === 0 && o.afterSeconds >= timeoutSeconds) {
    throw new Error(`${field} ${quote(value)} does not fall before the deadline (timeout ${timeoutSeconds} s)`);
  }
}

function checkList(key: string, list: string[] | string | undefined, max: number, maxLen: number, what: (i: number) => string): string[] {
  if (list === undefined || isDynamic(list) || typeof list === 'string') {
    return [];
  }
  if (list.length > max) {
    throw new Error(`${key} has ${list.length} entries; at most ${max} can be offered`);
  }
  list.forEach((v, i) => {
    if (isDynamic(v)) {
      return;
    }
    if (v.trim() === '') {
      throw new Error(`${what(i)} is empty`);
    }
    if (chars(v) > maxLen) {
      throw new Error(`${what(i)} is longer than ${maxLen} characters`);
    }
  });
  return list.filter((v) => !isDynamic(v));
}

/**
 * Checks the literal values of a request as the notifier would, and throws
 * an Error naming the first problem. Dynamic values are skipped; a field
 * whose value is a string where a list belongs must be dynamic.
 */
export function checkRequest(r: RequestValues): void {
  // Where and who.
  if (!isDynamic(r.channel)) {
    checkIdLiteral('channel', r.channel);
    if (r.channel === '') {
      throw new Error('channel is required (a channel ID such as C0123ABCD)');
    }
    if (!CHANNEL_ID.test(r.channel) && !USER_ID.test(r.channel)) {
      throw new Error(`channel ${quote(r.channel)} is not a Slack channel ID (C…, G… or D…) nor a user ID (U…/W…, for a direct message); use the ID, not the name`);
    }
  }
  if (r.threadTs !== undefined && !isDynamic(r.threadTs)) {
    checkIdLiteral('threadTs', r.threadTs);
    if (!TS.test(r.threadTs)) {
      throw new Error(`threadTs ${quote(r.threadTs)} is not a Slack message timestamp such as 1700000000.000100`);
    }
  }
  if (typeof r.approvers === 'string') {
    if (!isDynamic(r.approvers)) {
      throw new Error('approvers is a single string: give a list of user and user-group IDs, or a JSONata expression that evaluates to one');
    }
  } else if (!isDynamic(r.approvers)) {
    if (r.approvers.length === 0) {
      throw new Error('approvers is required: at least one user ID (U…/W…) or user-group ID (S…)');
    }
    checkPeople('approvers', r.approvers, 'approver');
  }
  if (r.requestedBy !== undefined && !isDynamic(r.requestedBy)) {
    checkIdLiteral('requestedBy', r.requestedBy);
    if (!USER_ID.test(r.requestedBy)) {
      throw new Error(`requestedBy ${quote(r.requestedBy)} is not a Slack user ID (U… or W…)`);
    }
  }

  // What people read.
  let text = 0;
  if (!isDynamic(r.title)) {
    if (r.title.trim() === '') {
      throw new Error('title is required');
    }
    if (chars(r.title) > MAX_TITLE) {
      throw new Error(`title is longer than ${MAX_TITLE} characters`);
    }
    text += chars(r.title);
  }
  if (r.summary !== undefined && !isDynamic(r.summary)) {
    if (chars(r.summary) > MAX_SUMMARY) {
      throw new Error(`summary is longer than ${MAX_SUMMARY} characters`);
    }
    text += chars(r.summary);
  }
  const fields = Object.entries(r.fields ?? {});
  if (fields.length > MAX_FIELDS) {
    throw new Error(`fields has ${fields.length} entries; Slack shows at most ${MAX_FIELDS}`);
  }
  for (const [label, value] of fields) {
    if (label.trim() === '') {
      throw new Error('fields has an empty label');
    }
    if (chars(label) > MAX_FIELD_LABEL) {
      throw new Error(`field label ${quote(label)} is longer than ${MAX_FIELD_LABEL} characters`);
    }
    text += chars(label);
    if (!isDynamic(value)) {
      if (chars(value) > MAX_FIELD_VALUE) {
        throw new Error(`field ${quote(label)} has a value longer than ${MAX_FIELD_VALUE} characters`);
      }
      text += chars(value);
    }
  }
  if (typeof r.drafts === 'string' && !isDynamic(r.drafts)) {
    throw new Error('drafts is a single string: give a list of drafts, or a value computed at run time');
  }
  for (const d of checkList('drafts', r.drafts, MAX_DRAFTS, MAX_DRAFT, (i) => `draft ${i + 1}`)) {
    text += chars(d);
  }
  if (typeof r.revisionPresets === 'string' && !isDynamic(r.revisionPresets)) {
    throw new Error('revisionPresets is a single string: give a list of presets, or a value computed at run time');
  }
  const first = new Map<string, number>();
  checkList('revisionPresets', r.revisionPresets, MAX_PRESETS, MAX_PRESET, (i) => `revision preset ${i + 1}`).forEach((p, i) => {
    const key = p.trim();
    const j = first.get(key);
    if (j !== undefined) {
      throw new Error(`revisionPresets repeats ${quote(key)} (presets ${j + 1} and ${i + 1}): each preset must be different, as Slack refuses a choice with two equal options`);
    }
    first.set(key, i);
  });
  if (text > MAX_TOTAL_TEXT) {
    throw new Error(`title, summary, fields and drafts add up to ${text} characters; Slack shows at most ${MAX_TOTAL_TEXT} in one message`);
  }

  // When.
  const timeout = r.timeoutSeconds;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_SECONDS) {
    throw new Error(`timeout must be a whole number of seconds from 1 to ${MAX_TIMEOUT_SECONDS}`);
  }

  // The policy.
  if (r.quorum !== undefined && (!Number.isInteger(r.quorum) || r.quorum < 1 || r.quorum > MAX_QUORUM)) {
    throw new Error(`quorum must be a whole number from 1 to ${MAX_QUORUM}`);
  }
  const seen = new Set<string>();
  for (const c of r.requireComment ?? []) {
    if (c !== 'approve' && c !== 'reject') {
      throw new Error(`requireComment holds ${quote(c)}; it may hold only "approve" and "reject"`);
    }
    if (seen.has(c)) {
      throw new Error(`requireComment repeats "${c}"`);
    }
    seen.add(c);
  }
  const escalateTo = r.escalateTo ?? [];
  checkPeople('escalateTo', escalateTo, 'escalateTo entry');
  if (r.escalateAfter !== undefined && escalateTo.length === 0) {
    throw new Error('escalateAfter needs escalateTo: whom to escalate to');
  }
  if (escalateTo.length > 0) {
    const after = r.escalateAfter ?? '75%';
    const o = parseOffset(after);
    if (typeof o === 'string') {
      throw new Error(`escalateAfter ${quote(after)} ${o}`);
    }
    checkBeforeDeadline('escalateAfter', after, o, timeout);
  }
  const reminders = r.reminders ?? [];
  if (reminders.length > MAX_REMINDERS) {
    throw new Error(`reminders has ${reminders.length} entries; at most ${MAX_REMINDERS} are allowed`);
  }
  const seenReminders = new Set<string>();
  for (const s of reminders) {
    const o = parseOffset(s);
    if (typeof o === 'string') {
      throw new Error(`reminders entry ${quote(s)} ${o}`);
    }
    if (seenReminders.has(s)) {
      throw new Error(`reminders repeats ${quote(s)}`);
    }
    seenReminders.add(s);
    checkBeforeDeadline('reminders entry', s, o, timeout);
  }
  switch (r.onDeadline) {
    case undefined:
    case 'reject':
      break;
    case 'skip':
      if (!r.allowSkip) {
        throw new Error('onDeadline "skip" needs allowSkip true: a request nobody may skip cannot be skipped at its deadline either');
      }
      break;
    default:
      throw new Error(`onDeadline must be "reject" or "skip", not ${quote(r.onDeadline)}`);
  }
  if (r.onDeadline !== undefined && timeout < MIN_ON_DEADLINE_TIMEOUT_SECONDS) {
    throw new Error(`onDeadline needs a timeout of at least ${MIN_ON_DEADLINE_TIMEOUT_SECONDS} s: the bot applies it ${ON_DEADLINE_LEAD_SECONDS / 60} minutes before the deadline`);
  }
  if (r.heartbeatSeconds !== undefined) {
    const h = r.heartbeatSeconds;
    if (!Number.isInteger(h) || h < MIN_HEARTBEAT_SECONDS) {
      throw new Error(`heartbeat must be a whole number of seconds, at least ${MIN_HEARTBEAT_SECONDS}: the bot sends heartbeats from its sweep, every ${SWEEP_INTERVAL_SECONDS} s by default`);
    }
    if (h >= timeout) {
      throw new Error('heartbeat must be less than timeout');
    }
  }

  // A quorum more people than may ever decide, when every approver is a
  // known user (a group's size is not known at synth time).
  if (r.quorum !== undefined && r.quorum > 1 && Array.isArray(r.approvers) && !isDynamic(r.approvers)) {
    const ids = [...r.approvers, ...escalateTo];
    if (ids.every((id) => !isDynamic(id) && USER_ID.test(id)) && (r.requestedBy === undefined || !isDynamic(r.requestedBy))) {
      const people = new Set(ids.filter((id) => id !== r.requestedBy || r.allowSelfApproval));
      if (people.size < r.quorum) {
        throw new Error(`quorum ${r.quorum} needs at least ${r.quorum} people who may approve, but approvers and escalateTo name ${people.size} (the requester does not count without allowSelfApproval)`);
      }
    }
  }
}
