/**
 * Reading a webhook delivery: header values, the body as text or as JSON at a dotted path, and
 * the matcher comparison. Pure functions over the raw request, so any junk input only ever
 * yields "no value" or "no match", never an exception.
 */

import { envNameIssue, taskVariableIssue, type VariableIssue } from '@gantry/contracts';

export type ValueSource = 'header' | 'body';
export type BodyDataType = 'json' | 'string';
export type MatchMethod = 'equals' | 'unequals' | 'contains';

/** What the receiver got: headers as Node gives them (lower-case names) and the raw body. */
export class Delivery {
  private parsed: { ok: true; value: unknown } | { ok: false } | undefined;

  constructor(
    readonly headers: Readonly<Record<string, string | string[] | undefined>>,
    readonly body: Buffer,
  ) {}

  /** The body as JSON, parsed once; `ok: false` when it is not JSON. */
  json(): { ok: true; value: unknown } | { ok: false } {
    if (!this.parsed) {
      try {
        this.parsed = { ok: true, value: JSON.parse(this.body.toString('utf8')) as unknown };
      } catch {
        this.parsed = { ok: false };
      }
    }
    return this.parsed;
  }

  header(name: string): string | undefined {
    const key = name.toLowerCase();
    if (!Object.hasOwn(this.headers, key)) return undefined;
    const v: unknown = this.headers[key];
    if (Array.isArray(v)) return v.join(', ');
    return typeof v === 'string' ? v : undefined;
  }
}

/**
 * A value of the delivery: `text` is what matchers compare (JSON values other than strings as
 * their JSON text), `value` what an extra variable receives (the JSON value itself). `unreadable`
 * means a JSON read of a body that is not JSON.
 */
export type ReadResult = { kind: 'value'; text: string; value: unknown } | { kind: 'missing' } | { kind: 'unreadable' };

export function readValue(d: Delivery, source: ValueSource, bodyType: BodyDataType | null, key: string): ReadResult {
  if (source === 'header') {
    const v = d.header(key);
    return v === undefined ? { kind: 'missing' } : { kind: 'value', text: v, value: v };
  }
  if (bodyType !== 'json') {
    const text = d.body.toString('utf8');
    return { kind: 'value', text, value: text };
  }
  const parsed = d.json();
  if (!parsed.ok) return { kind: 'unreadable' };
  const v = atPath(parsed.value, key);
  if (v === undefined) return { kind: 'missing' };
  if (typeof v === 'string') return { kind: 'value', text: v, value: v };
  try {
    return { kind: 'value', text: JSON.stringify(v), value: v };
  } catch {
    // Nesting too deep to write back out (JSON.parse takes more depth than JSON.stringify).
    return { kind: 'unreadable' };
  }
}

/** `a.b.0.c`: object keys (own properties only) and, on arrays, numeric indexes. */
export function atPath(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const seg of path.split('.')) {
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(seg)) return undefined;
      cur = cur[Number(seg)];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else {
      return undefined;
    }
  }
  return cur;
}

/**
 * One matcher: a missing value equals and contains nothing, and is unequal to anything; a JSON
 * matcher on a body that is not JSON never matches.
 */
export function matches(r: ReadResult, method: MatchMethod, expected: string): boolean {
  if (r.kind === 'unreadable') return false;
  const actual = r.kind === 'value' ? r.text : undefined;
  switch (method) {
    case 'equals':
      return actual === expected;
    case 'unequals':
      return actual !== expected;
    case 'contains':
      return actual !== undefined && actual.includes(expected);
  }
}

/**
 * Why an extracted value may not feed `variable`, or null when it may. Webhook-fed variables are
 * task input: an environment variable follows the task rule for environment names, an extra
 * variable the rule for every task variable (it is an environment variable of scripts too).
 */
export function extractedVariableProblem(type: string, variable: string): string | null {
  return extractedVariableIssue(type, variable)?.message ?? null;
}

/** extractedVariableProblem with the refusal's stable code. */
export function extractedVariableIssue(type: string, variable: string): VariableIssue | null {
  return type === 'environment' ? envNameIssue(variable, 'task') : taskVariableIssue(variable);
}
