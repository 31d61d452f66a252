import { describe, expect, it } from 'vitest';
import { parseRecap } from './recap.js';

const C = (code: string, s: string) => `\u001b[${code}m${s}\u001b[0m`;

describe('parseRecap', () => {
  it('reads every host of the recap, with colours removed', () => {
    const lines = [
      'PLAY [all] *********',
      'ok: [web1.example.com]',
      'web1.example.com : ok=9 changed=9 unreachable=9 failed=9',
      '',
      'PLAY RECAP *********************************************************************',
      `${C('0;33', 'web1.example.com')}           : ${C('0;32', 'ok=3   ')} ${C('0;33', 'changed=1   ')} unreachable=0    failed=0    skipped=2    rescued=0    ignored=1   `,
      `${C('0;31', '10.0.0.7')}                   : ok=1    changed=0    ${C('1;31', 'unreachable=1')}    failed=0    skipped=0    rescued=0    ignored=0   `,
      'fe80::1%eth0               : ok=0    changed=0    unreachable=0    failed=1    skipped=0    rescued=1    ignored=0',
      '::1 : ok=2 changed=0 unreachable=0 failed=0',
      '',
    ];
    expect(parseRecap(lines)).toEqual([
      { host: 'web1.example.com', ok: 3, changed: 1, unreachable: 0, failed: 0, skipped: 2, rescued: 0, ignored: 1 },
      { host: '10.0.0.7', ok: 1, changed: 0, unreachable: 1, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
      { host: 'fe80::1%eth0', ok: 0, changed: 0, unreachable: 0, failed: 1, skipped: 0, rescued: 1, ignored: 0 },
      { host: '::1', ok: 2, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
    ]);
  });

  it('guesses nothing without a recap, and stops at the first line that is not a host', () => {
    expect(parseRecap(['ok: [a]', 'a : ok=1 changed=0 unreachable=0 failed=0'])).toEqual([]);
    const r = parseRecap([
      'PLAY RECAP ***',
      'a : ok=1 changed=0 unreachable=0 failed=0 skipped=0 rescued=0 ignored=0',
      'Task #3 finished: success',
      'b : ok=1 changed=0 unreachable=0 failed=0 skipped=0 rescued=0 ignored=0',
    ]);
    expect(r.map((h) => h.host)).toEqual(['a']);
  });

  it('keeps the later recap of a host that appears twice, and skips overlong names', () => {
    const r = parseRecap([
      'PLAY RECAP',
      'a : ok=1 changed=0 unreachable=0 failed=0',
      'PLAY RECAP',
      'a : ok=5 changed=2 unreachable=0 failed=1',
      `${'x'.repeat(300)} : ok=1 changed=0 unreachable=0 failed=0`,
    ]);
    expect(r).toEqual([
      { host: 'a', ok: 5, changed: 2, unreachable: 0, failed: 1, skipped: 0, rescued: 0, ignored: 0 },
    ]);
  });
});
