import { NOTIFICATION_LIMITS } from '@gantry/contracts';

/**
 * A webhook's optional payload template: a logic-less language with two tags and nothing else
 * (no sections, no calls, no partials), so a template is data and never code:
 * - `{{ task.status }}`: the value as text, escaped for the inside of a JSON string;
 * - `{{ json task }}`: the value as JSON (a number, `"text"`, an object, `null`).
 * A path names members of the payload (`project.name`, `plan_summary.destroy`); a missing one is
 * empty text (`null` for `json`). Any other `{{` is refused when the destination is saved.
 */
const TAG = /\{\{\s*(json\s+)?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;

/** The first tag the language does not have, or null when the template is valid. */
export function checkPayloadTemplate(template: string): string | null {
  const rest = template.replace(TAG, '');
  const bad = rest.indexOf('{{');
  if (bad >= 0) return rest.slice(bad, bad + 40).split('}}')[0] + (rest.includes('}}', bad) ? '}}' : '');
  return null;
}

/** Renders a valid template against a payload; the result is cut at NOTIFICATION_LIMITS.renderedMax. */
export function renderPayloadTemplate(template: string, payload: unknown): string {
  const out = template.replace(TAG, (_m, json: string | undefined, path: string) => {
    const value = lookup(payload, path);
    if (json) return JSON.stringify(value ?? null);
    if (value === undefined || value === null) return '';
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return JSON.stringify(text).slice(1, -1);
  });
  return out.length > NOTIFICATION_LIMITS.renderedMax ? out.slice(0, NOTIFICATION_LIMITS.renderedMax) : out;
}

function lookup(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    // Own members only: a path never reaches a prototype's (`constructor`, `__proto__`).
    if (!Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
