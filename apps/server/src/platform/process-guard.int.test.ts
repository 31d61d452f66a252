import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertServerBuilt } from '../test/server-process.js';

// In a process of its own (the built module): the guard changes what the whole process does.
const GUARD = path.resolve(import.meta.dirname, '../../dist/platform/process-guard.js');

function runWith(rejection: string): { status: number | null; output: string } {
  const script = `
    const { surviveDatabaseRejections } = await import(${JSON.stringify(GUARD)});
    surviveDatabaseRejections('postgres://gantry:hunter2@db/gantry');
    void Promise.reject(${rejection});
    setTimeout(() => console.log('still running'), 100);
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('surviveDatabaseRejections', () => {
  it('keeps the process through an unhandled rejection that is only the database gone away', () => {
    assertServerBuilt();
    const r = runWith(`Object.assign(new Error('connect ECONNREFUSED hunter2'), { code: 'ECONNREFUSED' })`);
    expect(r.status).toBe(0);
    expect(r.output).toContain('database: a background job failed (ECONNREFUSED: connect ECONNREFUSED ***); the server carries on');
    expect(r.output).toContain('still running');
  });

  it('still ends the process on any other unhandled rejection', () => {
    const r = runWith(`new Error('a bug')`);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('a bug');
    expect(r.output).not.toContain('still running');
  });
});
