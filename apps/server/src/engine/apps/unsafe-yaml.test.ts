import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { quote, unsafeExtraVarsYaml } from './unsafe-yaml.js';

/** The Python that ansible-playbook runs with (its shebang), so its own modules are importable. */
function ansiblePython(): string {
  const exe = execFileSync('sh', ['-c', 'command -v ansible-playbook'], { encoding: 'utf8' }).trim();
  return fs
    .readFileSync(exe, 'utf8')
    .split('\n')[0]!
    .replace(/^#!\s*/, '')
    .split(/\s+/)[0]!;
}

/**
 * Reads the YAML back with Ansible's own loader (the one `--extra-vars @file` uses) and answers
 * each value as JSON plus, for every string, whether Ansible holds it as unsafe text.
 */
function ansibleRead(yaml: string): { value: unknown; unsafe: unknown } {
  const script = `
import json, sys
from ansible.parsing.yaml.loader import AnsibleLoader
from ansible.utils.unsafe_proxy import AnsibleUnsafe
data = AnsibleLoader(sys.stdin.read()).get_single_data()
def marks(v):
    if isinstance(v, dict): return {k: marks(x) for k, x in v.items()}
    if isinstance(v, list): return [marks(x) for x in v]
    if isinstance(v, str): return isinstance(v, AnsibleUnsafe)
    return None
print(json.dumps({"value": data, "unsafe": marks(data)}))
`;
  const r = spawnSync(ansiblePython(), ['-c', script], { input: yaml, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { value: unknown; unsafe: unknown };
}

describe('the unsafe extra-vars file', () => {
  it('tags every string, nested ones and mapping keys included, and keeps other JSON values plain', () => {
    const vars = {
      greeting: "{{ lookup('pipe', 'id') }}",
      count: 5,
      ratio: 1.5,
      big: 1e21,
      small: -5e-7,
      on: true,
      none: null,
      list: ['{% if true %}x{% endif %}', 2, false],
      obj: { '{{ key }}': 'v', nested: { a: '{{ 7 * 7 }}' } },
    };
    const yaml = unsafeExtraVarsYaml(vars);
    expect(yaml).toContain(`"greeting": !unsafe "{{ lookup('pipe', 'id') }}"`);
    const read = ansibleRead(yaml);
    expect(read.value).toEqual(vars);
    expect(read.unsafe).toEqual({
      greeting: true,
      count: null,
      ratio: null,
      big: null,
      small: null,
      on: null,
      none: null,
      list: [true, null, null],
      obj: { '{{ key }}': true, nested: { a: true } },
    });
  });

  it('writes only printable ASCII and reads back any text exactly', () => {
    const nasty = 'é\u0000\t\n\r"\\ \u2028 \ufeff \u0085 😀 a: b # c \' & * ! | > % @ `';
    const yaml = unsafeExtraVarsYaml({ s: nasty, [`k`]: ['\u007f', '\\x41', '\\u0041'] });
    expect(yaml).toMatch(/^[\x20-\x7e\n]*$/);
    // Astral characters are one \U escape, never a surrogate pair.
    expect(yaml).toContain('\\U0001F600');
    expect(yaml).not.toMatch(/\\u[dD][89abAB]/);
    expect(ansibleRead(yaml).value).toEqual({ s: nasty, k: ['\u007f', '\\x41', '\\u0041'] });
  });

  it('writes a lone surrogate (possible in JSON text) as U+FFFD', () => {
    expect(quote('a\ud800b')).toBe('"a\\uFFFDb"');
    expect(ansibleRead(unsafeExtraVarsYaml({ s: 'a\udc00' })).value).toEqual({ s: 'a\ufffd' });
  });

  it('writes an empty mapping for no variables', () => {
    expect(ansibleRead(unsafeExtraVarsYaml({})).value).toEqual({});
  });
});
