import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@gantry/contracts';
import {
  findPolicyTool,
  parseConftestOutput,
  parseOpaOutput,
  policyArgv,
  policyToolReasons,
} from './terraform-policy-tools.js';

// Shaped as `conftest test --output json` prints it (conftest docs, "Output" / json).
const CONFTEST = JSON.stringify([
  {
    filename: 'gantry-plan.json',
    namespace: 'main',
    successes: 2,
    failures: [
      { msg: 'terraform_data.gone may not be destroyed', metadata: { query: 'data.main.deny' } },
      { msg: 'tags.owner is required' },
    ],
    warnings: [{ msg: 'only a warning' }],
  },
]);
// Shaped as `opa eval --format json ... data.terraform.deny` prints it.
const OPA = JSON.stringify({
  result: [
    {
      expressions: [
        {
          value: ['no public buckets', { msg: 'no destroys on Fridays' }],
          text: 'data.terraform.deny',
          location: { row: 1, col: 1 },
        },
      ],
    },
  ],
});

describe('policy tool output', () => {
  it('reads conftest failures (not warnings) as denials', () => {
    expect(parseConftestOutput(CONFTEST).map((r) => [r.code, r.message])).toEqual([
      [ErrorCodes.policyDenied, 'terraform_data.gone may not be destroyed'],
      [ErrorCodes.policyDenied, 'tags.owner is required'],
    ]);
    expect(parseConftestOutput(JSON.stringify([{ filename: 'p.json', successes: 3, failures: [] }]))).toEqual([]);
  });

  it('reads the deny set opa evaluated; an undefined rule denies nothing', () => {
    expect(parseOpaOutput(OPA).map((r) => r.message)).toEqual(['no public buckets', 'no destroys on Fridays']);
    expect(parseOpaOutput('{}')).toEqual([]);
    expect(parseOpaOutput(JSON.stringify({ result: [{ expressions: [{ value: [] }] }] }))).toEqual([]);
  });

  it('fails closed on a failed run or an answer it cannot read', () => {
    const conftest = { kind: 'conftest' as const, path: '/x/conftest' };
    const opa = { kind: 'opa' as const, path: '/x/opa' };
    expect(policyToolReasons(conftest, 1, CONFTEST)).toHaveLength(2);
    expect(policyToolReasons(conftest, 0, JSON.stringify([{ failures: [] }]))).toEqual([]);
    expect(policyToolReasons(conftest, 1, '[]')[0]!.message).toMatch(/exited with 1 and named no failure/);
    expect(policyToolReasons(conftest, 2, '')[0]!.message).toMatch(/failed: it exited with 2/);
    expect(policyToolReasons(opa, 1, OPA)[0]!.message).toMatch(/exited with 1/);
    expect(policyToolReasons(opa, 0, 'not json')[0]).toMatchObject({ code: ErrorCodes.policyDenied });
  });

  it('builds argv lists (no shell) and finds the tools on PATH, conftest first', () => {
    const conftest = { kind: 'conftest' as const, path: '/x/conftest' };
    expect(policyArgv(conftest, '/r/policy', '/w/plan.json')).toEqual([
      'test',
      '--no-color',
      '--output',
      'json',
      '--policy',
      '/r/policy',
      '--',
      '/w/plan.json',
    ]);
    expect(policyArgv({ kind: 'opa', path: '/x/opa' }, '/r/policy', '/w/plan.json')).toEqual([
      'eval',
      '--format',
      'json',
      '--data',
      '/r/policy',
      '--input',
      '/w/plan.json',
      'data.terraform.deny',
    ]);
    const a = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-policy-'));
    const b = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-policy-'));
    expect(findPolicyTool(`${a}:${b}`)).toBeNull();
    fs.writeFileSync(path.join(a, 'opa'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(b, 'conftest'), '#!/bin/sh\n', { mode: 0o644 });
    // Not executable: not a tool.
    expect(findPolicyTool(`${a}:${b}`)).toEqual({ kind: 'opa', path: path.join(a, 'opa') });
    fs.chmodSync(path.join(b, 'conftest'), 0o755);
    expect(findPolicyTool(`${a}:${b}`)).toEqual({ kind: 'conftest', path: path.join(b, 'conftest') });
  });
});
