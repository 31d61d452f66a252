import {
  PLAN_MAX_CHANGES,
  SENSITIVE_PLACEHOLDER,
  type PlanAttributeChange,
  type StateDiff,
  type StateResourceDiff,
} from '@gantry/contracts';
import { redactState } from './state-redaction.js';

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);
const isContainer = (v: unknown): v is Loose | unknown[] => isObject(v) || Array.isArray(v);

/** One resource instance of a state: its address, raw attributes and redacted attributes. */
interface Instance {
  raw: unknown;
  redacted: unknown;
}

/** The resources' instances by address (`module.a.type.name["k"]`, as `terraform state list` prints them). */
function instancesOf(raw: Loose, redacted: Loose): Map<string, Instance> {
  const out = new Map<string, Instance>();
  const rawResources = Array.isArray(raw.resources) ? raw.resources : [];
  const redResources = Array.isArray(redacted.resources) ? redacted.resources : [];
  rawResources.forEach((r, ri) => {
    if (!isObject(r)) return;
    const red = redResources[ri];
    const base = `${typeof r.module === 'string' && r.module ? `${r.module}.` : ''}${r.mode === 'data' ? 'data.' : ''}${String(r.type)}.${String(r.name)}`;
    const instances = Array.isArray(r.instances) ? r.instances : [];
    const redInstances = isObject(red) && Array.isArray(red.instances) ? red.instances : [];
    instances.forEach((i, ii) => {
      const key = isObject(i) ? i.index_key : undefined;
      const address =
        typeof key === 'number'
          ? `${base}[${key}]`
          : typeof key === 'string'
            ? `${base}[${JSON.stringify(key)}]`
            : base;
      const redInstance = redInstances[ii];
      out.set(address, {
        raw: isObject(i) ? i.attributes : undefined,
        // An instance the redaction did not produce shows nothing of its values.
        redacted: isObject(redInstance) ? redInstance.attributes : SENSITIVE_PLACEHOLDER,
      });
    });
  });
  return out;
}

/** Whether the redaction hid this value (the raw value is not the placeholder text itself). */
const hidden = (redacted: unknown, raw: unknown) => redacted === SENSITIVE_PLACEHOLDER && raw !== SENSITIVE_PLACEHOLDER;

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!equal(a[k], b[k])) return false;
    return true;
  }
  return false;
}

const child = (v: unknown, key: string | number): unknown =>
  Array.isArray(v) ? v[key as number] : isObject(v) ? v[key as string] : undefined;

/** The keys (or indexes) of a container. */
const keysOf = (v: unknown): Array<string | number> =>
  Array.isArray(v) ? v.map((_, i) => i) : isObject(v) ? Object.keys(v) : [];

/**
 * The changed leaves between two values, as dotted paths (`tags.env`, `list.0`). Raw values decide
 * what changed; the redacted ones are what is shown, so a hidden branch is one change whose side
 * shows the placeholder, never its content.
 */
function changes(
  before: { raw: unknown; red: unknown },
  after: { raw: unknown; red: unknown },
  path: string,
  out: PlanAttributeChange[],
): void {
  if (out.length >= PLAN_MAX_CHANGES) return;
  const hiddenSide = hidden(before.red, before.raw) || hidden(after.red, after.raw);
  const absent = (v: unknown) => v === undefined || v === null;
  // Into containers of one kind (or one side absent); anything else is one change of the whole value.
  const recurse =
    !hiddenSide &&
    (isContainer(before.red) || isContainer(after.red)) &&
    (absent(before.red) ||
      absent(after.red) ||
      (isContainer(before.red) && isContainer(after.red) && Array.isArray(before.red) === Array.isArray(after.red)));
  const empty = recurse && keysOf(before.red).length === 0 && keysOf(after.red).length === 0;
  if (recurse && !empty) {
    const keys = [...keysOf(before.red)];
    for (const k of keysOf(after.red)) if (!keys.includes(k)) keys.push(k);
    for (const k of keys) {
      const p = path ? `${path}.${k}` : String(k);
      changes(
        { raw: child(before.raw, k), red: child(before.red, k) },
        { raw: child(after.raw, k), red: child(after.red, k) },
        p,
        out,
      );
    }
    return;
  }
  if (equal(before.raw, after.raw)) return;
  out.push({ path, before: before.red ?? null, after: after.red ?? null });
}

function parse(text: string): { raw: Loose; redacted: Loose } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = {};
  }
  if (!isObject(raw)) raw = {};
  const redacted = JSON.parse(redactState(JSON.stringify(raw))) as unknown;
  return { raw: raw as Loose, redacted: isObject(redacted) ? redacted : {} };
}

/**
 * What changed between two states (JSON text): resource instances added, removed or changed by
 * address, with the changed attribute paths, and the outputs that changed. Values are shown as
 * the state view shows them: sensitive attributes and outputs as "(sensitive)". At most
 * PLAN_MAX_CHANGES attribute changes per resource.
 */
export function diffStates(fromId: number, fromText: string, toId: number, toText: string): StateDiff {
  const a = parse(fromText);
  const b = parse(toText);
  const before = instancesOf(a.raw, a.redacted);
  const after = instancesOf(b.raw, b.redacted);
  const addresses = [...new Set([...before.keys(), ...after.keys()])].sort();
  const resources: StateResourceDiff[] = [];
  for (const address of addresses) {
    const x = before.get(address);
    const y = after.get(address);
    const attributes: PlanAttributeChange[] = [];
    changes({ raw: x?.raw, red: x?.redacted }, { raw: y?.raw, red: y?.redacted }, '', attributes);
    if (x && y && attributes.length === 0) continue;
    resources.push({ address, change: !x ? 'added' : !y ? 'removed' : 'changed', attributes });
  }
  const outputs: PlanAttributeChange[] = [];
  const outA = isObject(a.raw.outputs) ? a.raw.outputs : {};
  const outB = isObject(b.raw.outputs) ? b.raw.outputs : {};
  const redA = isObject(a.redacted.outputs) ? a.redacted.outputs : {};
  const redB = isObject(b.redacted.outputs) ? b.redacted.outputs : {};
  const names = [...new Set([...Object.keys(outA), ...Object.keys(outB)])].sort();
  for (const name of names) {
    const rawBefore = child(outA[name], 'value');
    const rawAfter = child(outB[name], 'value');
    const sensitiveChanged = child(outA[name], 'sensitive') !== child(outB[name], 'sensitive');
    if (name in outA && name in outB && equal(rawBefore, rawAfter) && !sensitiveChanged) continue;
    outputs.push({
      path: name,
      before: name in outA ? (child(redA[name], 'value') ?? null) : null,
      after: name in outB ? (child(redB[name], 'value') ?? null) : null,
    });
  }
  return { from: fromId, to: toId, resources, outputs };
}
