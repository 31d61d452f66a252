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
  if (isObject(state.outputs)) {
    out.outputs = Object.fromEntries(
      Object.entries(state.outputs).map(([name, o]) => [
        name,
        isObject(o) && o.sensitive === true ? { ...o, value: SENSITIVE_PLACEHOLDER } : o,
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
            if (Array.isArray(p)) attributes = redactPath(attributes, p as PathStep[]);
          }
          return { ...inst, attributes };
        }),
      };
    });
  }
  return JSON.stringify(out, null, 2);
}
