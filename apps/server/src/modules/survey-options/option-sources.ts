import type { SurveyOption } from '@gantry/contracts';

/**
 * The pure parts of dynamic options: what a URL's answer means, what an inventory listing
 * offers (a cascade's: contracts' cascadeOptions). The service fetches and caches around them.
 */

/** Inventory groups Ansible makes up for every inventory: offering them picks nothing. */
const IMPLICIT_GROUPS = new Set(['all', 'ungrouped']);

const asText = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;

/**
 * Options from a URL's JSON answer: a list of strings (each its own name and value) or of
 * `{name, value}` objects (`name` defaults to the value); numbers and booleans are taken as their
 * text. Null when the answer is anything else. A value given twice is offered once.
 */
export function optionsFromJson(text: string): SurveyOption[] | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(data)) return null;
  const out: SurveyOption[] = [];
  const seen = new Set<string>();
  for (const item of data) {
    let option: SurveyOption | null = null;
    const plain = asText(item);
    if (plain !== null) option = { name: plain.trim(), value: plain };
    else if (item && typeof item === 'object' && !Array.isArray(item)) {
      const o = item as Record<string, unknown>;
      const value = asText(o.value);
      const name = o.name === undefined ? value : asText(o.name);
      if (value !== null && name !== null) option = { name: name.trim(), value };
    }
    if (!option) return null;
    if (seen.has(option.value)) continue;
    seen.add(option.value);
    out.push(option);
  }
  return out;
}

/** An inventory's hosts or groups as options (sorted; Ansible's implicit groups left out). */
export function inventoryOptions(
  listing: { hosts: Array<{ name: string }>; groups: string[] },
  kind: 'inventory_hosts' | 'inventory_groups',
): SurveyOption[] {
  const names =
    kind === 'inventory_hosts'
      ? listing.hosts.map((h) => h.name)
      : listing.groups.filter((g) => !IMPLICIT_GROUPS.has(g));
  return [...new Set(names)].sort((a, b) => a.localeCompare(b)).map((name) => ({ name, value: name }));
}
