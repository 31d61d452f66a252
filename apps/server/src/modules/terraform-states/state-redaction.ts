import { SENSITIVE_PLACEHOLDER } from '@gantry/contracts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type PathStep = { type?: string; value?: unknown };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The key or index a `sensitive_attributes` path step names (`get_attr`, `index`). */
function stepKey(step: PathStep): string | number | null {
  if (step.type === 'get_attr' && typeof step.value === 'string') return step.value;
  if (step.type === 'index') {
    const v = isObject(step.value) ? step.value.value : step.value;
    if (typeof v === 'string' || typeof v === 'number') return v;
  }
  return null;
}

/** Replaces the value at `path` inside `root` (objects and arrays); a path that is not there is ignored. */
function redactPath(root: Json, path: PathStep[]): Json {
  if (path.length === 0) return SENSITIVE_PLACEHOLDER;
  const [first, ...rest] = path;
  const key = stepKey(first!);
  if (key === null) return SENSITIVE_PLACEHOLDER; // an unknown step: hide the whole branch
  if (Array.isArray(root) && typeof key === 'number' && key in root) {
    const copy = [...root];
    copy[key] = redactPath(copy[key]!, rest);
    return copy;
  }
  if (isObject(root) && String(key) in root) return { ...root, [key]: redactPath(root[String(key)]!, rest) };
  return root;
}

/** Shorter values, and the type names `terraform_data` stores next to a value, are too common to hide everywhere. */
const MIN_ECHOED = 4;
const TYPE_NAMES = new Set(['string', 'number', 'bool', 'list', 'map', 'set', 'object', 'tuple', 'dynamic']);

/** The text leaves of a value. */
function textLeaves(v: Json | undefined, out: Set<string>): void {
  if (typeof v === 'string') {
    if (v.length >= MIN_ECHOED && !TYPE_NAMES.has(v) && v !== SENSITIVE_PLACEHOLDER) out.add(v);
  } else if (Array.isArray(v)) v.forEach((x) => textLeaves(x, out));
  else if (isObject(v)) Object.values(v).forEach((x) => textLeaves(x, out));
}

/** `v` with every text leaf that is one of `secrets` replaced by the placeholder. */
function hideEchoes(v: Json, secrets: Set<string>): Json {
  if (typeof v === 'string') return secrets.has(v) ? SENSITIVE_PLACEHOLDER : v;
  if (Array.isArray(v)) return v.map((x) => hideEchoes(x, secrets));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hideEchoes(x, secrets)]));
  return v;
}

/** A sensitive output with its value hidden (and its text leaves noted). */
function hideOutput(o: Record<string, Json>, secrets: Set<string>): Json {
  textLeaves(o.value, secrets);
  return { ...o, value: SENSITIVE_PLACEHOLDER };
}

/** Hides the echoes of `secrets` in output values and instance attributes (names and types stay). */
function hideEchoesIn(out: Record<string, Json>, secrets: Set<string>): void {
  if (isObject(out.outputs)) {
    out.outputs = Object.fromEntries(
      Object.entries(out.outputs).map(([name, o]) => [
        name,
        isObject(o) && 'value' in o ? { ...o, value: hideEchoes(o.value!, secrets) } : o,
      ]),
    );
  }
  if (Array.isArray(out.resources)) {
    out.resources = out.resources.map((r) =>
      isObject(r) && Array.isArray(r.instances)
        ? {
            ...r,
            instances: r.instances.map((inst) =>
              isObject(inst) && 'attributes' in inst
                ? { ...inst, attributes: hideEchoes(inst.attributes!, secrets) }
                : inst,
            ),
          }
        : r,
    );
  }
}

/** The values at `path` inside `root` (what `redactPath` hides). */
function valueAt(root: Json | undefined, path: PathStep[]): Json | undefined {
  let v = root;
  for (const step of path) {
    const key = stepKey(step);
    if (key === null) return v;
    if (Array.isArray(v) && typeof key === 'number') v = v[key];
    else if (isObject(v)) v = v[String(key)];
    else return undefined;
  }
  return v;
}

/**
 * A Terraform/OpenTofu state (JSON text) with its sensitive values replaced by "(sensitive)":
 * values of outputs marked sensitive and each instance's `sensitive_attributes`. Text that is
 * not a JSON object is not shown at all.
 */
export function redactState(text: string): string {
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    return JSON.stringify({ error: 'unreadable state' });
  }
  if (!isObject(state)) return JSON.stringify({ error: 'unreadable state' });
  const out: Record<string, Json> = { ...state };
  // The sensitive values themselves: a provider may echo one into an attribute terraform does not
  // mark (`terraform_data.output` repeats a sensitive `input`), so those copies are hidden too.
  const secrets = new Set<string>();
  if (isObject(state.outputs)) {
    out.outputs = Object.fromEntries(
      Object.entries(state.outputs).map(([name, o]) => [
        name,
        isObject(o) && o.sensitive === true ? hideOutput(o, secrets) : o,
      ]),
    );
  }
  if (Array.isArray(state.resources)) {
    out.resources = state.resources.map((r) => {
      if (!isObject(r) || !Array.isArray(r.instances)) return r;
      return {
        ...r,
        instances: r.instances.map((inst) => {
          if (!isObject(inst) || !Array.isArray(inst.sensitive_attributes)) return inst;
          let attributes: Json = inst.attributes ?? null;
          for (const p of inst.sensitive_attributes) {
            if (!Array.isArray(p)) continue;
            textLeaves(valueAt(attributes, p as PathStep[]), secrets);
            attributes = redactPath(attributes, p as PathStep[]);
          }
          return { ...inst, attributes };
        }),
      };
    });
  }
  if (secrets.size > 0) hideEchoesIn(out, secrets);
  return JSON.stringify(out, null, 2);
}
