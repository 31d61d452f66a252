import {
  PLAN_MAX_CHANGES,
  PLAN_MAX_RESOURCES,
  PLAN_SENSITIVE,
  PLAN_UNKNOWN,
  type PlanAction,
  type PlanAttributeChange,
  type PlanResource,
  type PlanSummary,
} from '@gantry/contracts';

/** No string value of a summary is kept longer (a rendered file, a certificate). */
export const PLAN_MAX_VALUE_CHARS = 1000;

/** Sensitive values shorter than this are not searched for in unmarked attributes (too many false hits). */
const MIN_SECRET_CHARS = 4;

type Json = unknown;
type Marks = unknown;

interface ResourceChange {
  address?: unknown;
  type?: unknown;
  mode?: unknown;
  change?: {
    actions?: unknown;
    before?: Json;
    after?: Json;
    after_unknown?: Marks;
    before_sensitive?: Marks;
    after_sensitive?: Marks;
  };
}

/** The action a plan takes on one resource instance; null for no-op, read and anything else left out. */
export function planAction(actions: unknown): PlanAction | null {
  if (!Array.isArray(actions)) return null;
  const a = actions.join(',');
  if (a === 'create') return 'create';
  if (a === 'update') return 'update';
  if (a === 'delete') return 'destroy';
  if (a === 'delete,create' || a === 'create,delete') return 'replace';
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === 'object' && v !== null;

/** The mark (sensitive/unknown tree) of `key` under `m`: `true` covers everything below it. */
function child(m: Marks, key: string | number): Marks {
  if (m === true) return true;
  if (Array.isArray(m)) return typeof key === 'number' ? m[key] : undefined;
  if (isObject(m)) return m[String(key)];
  return undefined;
}

function keysOf(...vs: unknown[]): Array<string | number> {
  const arrays = vs.filter(Array.isArray);
  if (arrays.length) return Array.from({ length: Math.max(...arrays.map((a) => a.length)) }, (_, i) => i);
  const keys = new Set<string>();
  for (const v of vs) if (isObject(v)) for (const k of Object.keys(v)) keys.add(k);
  return [...keys].sort();
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Every string value a plan marks sensitive anywhere (and every sensitive variable's), to hide where Terraform does not mark it. */
function collectSecrets(plan: Record<string, unknown>, changes: ResourceChange[]): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, m: Marks, sensitive: boolean) => {
    const s = sensitive || m === true;
    if (typeof v === 'string') {
      if (s && v.length >= MIN_SECRET_CHARS) found.add(v);
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, child(m, i), s));
    else if (isObject(v)) for (const [k, x] of Object.entries(v)) walk(x, child(m, k), s);
    else if (s && (typeof v === 'number' || typeof v === 'boolean') && String(v).length >= MIN_SECRET_CHARS)
      found.add(String(v));
  };
  for (const rc of changes) {
    walk(rc.change?.before, rc.change?.before_sensitive, false);
    walk(rc.change?.after, rc.change?.after_sensitive, false);
  }
  const config = (plan.configuration as { root_module?: { variables?: Record<string, { sensitive?: boolean }> } })
    ?.root_module?.variables;
  const values = plan.variables as Record<string, { value?: unknown }> | undefined;
  if (isObject(config) && isObject(values))
    for (const [name, v] of Object.entries(config)) if (v?.sensitive) walk(values[name]?.value, true, true);
  const outputs = plan.output_changes as Record<string, Record<string, unknown>> | undefined;
  if (isObject(outputs))
    for (const o of Object.values(outputs)) {
      walk(o?.before, o?.before_sensitive, false);
      walk(o?.after, o?.after_sensitive, false);
    }
  // Longest first: a secret containing another is hidden whole.
  return [...found].sort((a, b) => b.length - a.length);
}

/** A value as a summary keeps it: secrets hidden, long strings cut. */
function shown(v: unknown, secrets: string[]): unknown {
  if (v === undefined) return null;
  if (typeof v === 'string') {
    if (secrets.some((s) => v.includes(s))) return PLAN_SENSITIVE;
    return v.length > PLAN_MAX_VALUE_CHARS ? `${v.slice(0, PLAN_MAX_VALUE_CHARS)}…` : v;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return secrets.includes(String(v)) ? PLAN_SENSITIVE : v;
  if (Array.isArray(v)) return v.map((x) => shown(x, secrets));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shown(x, secrets)]));
  return v;
}

/** The changed attribute paths of one resource change, at most PLAN_MAX_CHANGES. */
function attributeChanges(c: NonNullable<ResourceChange['change']>, secrets: string[]): PlanAttributeChange[] {
  const out: PlanAttributeChange[] = [];
  const walk = (path: string, before: unknown, after: unknown, bs: Marks, as: Marks, au: Marks) => {
    if (out.length >= PLAN_MAX_CHANGES) return;
    const leaf = (b: unknown, a: unknown) => out.push({ path, before: b, after: a });
    if (au === true) {
      leaf(bs === true ? PLAN_SENSITIVE : shown(before, secrets), PLAN_UNKNOWN);
      return;
    }
    if (bs === true || as === true) {
      if (!equal(before, after))
        leaf(
          bs === true ? PLAN_SENSITIVE : shown(before, secrets),
          as === true ? PLAN_SENSITIVE : shown(after, secrets),
        );
      return;
    }
    const containers = [before, after].filter((v) => v !== null && v !== undefined);
    const nested =
      containers.length > 0 &&
      containers.every(isContainer) &&
      containers.every((v) => Array.isArray(v) === Array.isArray(containers[0]));
    const marked = isContainer(au) && keysOf(au).length > 0;
    if (nested || (marked && containers.length === 0)) {
      const keys = keysOf(before, after, ...(isContainer(au) ? [au] : []));
      // An empty container that appears or goes is a change of its own.
      if (!keys.length) {
        if (!equal(before, after)) leaf(shown(before, secrets), shown(after, secrets));
        return;
      }
      for (const k of keys) {
        const sub = path ? `${path}.${k}` : String(k);
        walk(sub, child(before, k), child(after, k), child(bs, k), child(as, k), child(au, k));
      }
      return;
    }
    if (!equal(before, after)) leaf(shown(before, secrets), shown(after, secrets));
  };
  walk('', c.before, c.after, c.before_sensitive, c.after_sensitive, c.after_unknown);
  return out;
}

/**
 * What `terraform show -json <planfile>` (or tofu's) says a saved plan does: counts per action,
 * and per resource (at most PLAN_MAX_RESOURCES) the attribute paths that change, with sensitive
 * values as PLAN_SENSITIVE (Terraform's marks, and any string equal to a value marked sensitive
 * anywhere in the plan) and values only the apply knows as PLAN_UNKNOWN. A `-refresh-only` plan
 * has no resource changes: its `resource_drift` (changes made outside Terraform) is summarised.
 * Throws when `showJson` is not a plan.
 */
export function summarizePlan(showJson: string | Record<string, unknown>, refreshOnly = false): PlanSummary {
  const plan = typeof showJson === 'string' ? (JSON.parse(showJson) as unknown) : showJson;
  if (!isObject(plan) || typeof plan.format_version !== 'string') throw new Error('not the JSON of a saved plan');
  const list = (v: unknown): ResourceChange[] => (Array.isArray(v) ? v.filter(isObject) : []);
  const changes = refreshOnly ? list(plan.resource_drift) : list(plan.resource_changes);
  const secrets = collectSecrets(plan, [...list(plan.resource_changes), ...list(plan.resource_drift)]);
  const summary: PlanSummary = {
    create: 0,
    update: 0,
    replace: 0,
    destroy: 0,
    resources: [],
    truncated: false,
    output_changes: [],
    refresh_only: refreshOnly,
    policy: null,
  };
  for (const rc of changes) {
    const action = planAction(rc.change?.actions);
    if (!action) continue;
    summary[action]++;
    if (summary.resources.length >= PLAN_MAX_RESOURCES) {
      summary.truncated = true;
      continue;
    }
    const resource: PlanResource = {
      address: typeof rc.address === 'string' ? rc.address : '',
      type: typeof rc.type === 'string' ? rc.type : '',
      action,
      changes: attributeChanges(rc.change ?? {}, secrets),
    };
    summary.resources.push(resource);
  }
  if (isObject(plan.output_changes))
    for (const [name, o] of Object.entries(plan.output_changes))
      if (isObject(o) && Array.isArray(o.actions) && o.actions.some((a) => a !== 'no-op'))
        summary.output_changes.push(name);
  summary.output_changes.sort();
  return summary;
}
