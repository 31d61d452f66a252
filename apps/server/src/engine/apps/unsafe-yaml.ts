/**
 * Extra variables from task input as an Ansible extra-vars file in which every string is tagged
 * `!unsafe`: Ansible then treats the text as data and never renders Jinja in it, so
 * `{{ lookup('pipe', 'id') }}` from a task is printed, not run.
 *
 * Written by hand in YAML flow style (a JSON-like mapping) so nothing depends on how a library
 * chooses to quote. Strings are double-quoted with only printable ASCII left as is; everything
 * else is escaped the way PyYAML reads it back (`\xXX`, `\uXXXX`, `\UXXXXXXXX`), so no raw
 * non-ASCII or control character reaches the YAML reader and no surrogate is ever written.
 */
export function unsafeExtraVarsYaml(vars: Record<string, unknown>): string {
  // Top-level keys are variable names (already checked as identifiers): plain quoted strings.
  const entries = Object.entries(vars).map(([k, v]) => `${quote(k)}: ${node(v)}`);
  return `{${entries.join(', ')}}\n`;
}

function node(v: unknown): string {
  if (typeof v === 'string') return `!unsafe ${quote(v)}`;
  if (typeof v === 'number') return Number.isFinite(v) ? yamlNumber(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(node).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `!unsafe ${quote(k)}: ${node(x)}`)
      .join(', ')}}`;
  }
  // Nothing else comes out of JSON; anything that did would be text, and data.
  return `!unsafe ${quote(String(v))}`;
}

/** YAML 1.1 (PyYAML) reads an exponent as a float only with a dot in the mantissa: `1.0e+21`. */
function yamlNumber(n: number): string {
  const text = JSON.stringify(n);
  return /e/i.test(text) && !text.includes('.') ? text.replace(/e/i, '.0e') : text;
}

/** A YAML double-quoted scalar holding exactly `s`. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    let cp = ch.codePointAt(0)!;
    // A lone surrogate (possible in JSON text) is no character at all: written as U+FFFD.
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp === 0x22) out += '\\"';
    else if (cp === 0x5c) out += '\\\\';
    else if (cp >= 0x20 && cp <= 0x7e) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + '"';
}

const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, '0');
