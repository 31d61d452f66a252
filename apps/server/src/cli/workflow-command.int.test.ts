import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { engines, signedInUser, useTestApp } from '../test/harness.js';
import { createWorkflow, nodeOf, tnode, waitRun, wfProject } from '../test/workflow-runs.js';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../../bin/gantry.mjs');

/**
 * `gantry workflow run` starts a run in the database the server uses; the server (here the test
 * app, whose driver runs like any node's) drives it, and --wait reports how it ended by its exit code.
 */
describe.each(engines.slice(0, 2))('gantry workflow run ($name)', (engine) => {
  const t = useTestApp(engine);
  const gantry = (...args: string[]) =>
    run('node', [bin, 'workflow', 'run', ...args], {
      env: {
        ...process.env,
        GANTRY_DATA_DIR: t().config.dataDir,
        GANTRY_DB_URL: t().config.dbUrl,
        GANTRY_SECRET_KEY: t().secretKey.toString('base64'),
        GANTRY_LOG_LEVEL: 'silent',
      },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('starts a run as a user and waits for its end: 0 on success, 1 on failure', async () => {
    expect(
      fs.existsSync(path.resolve(import.meta.dirname, '../../dist/cli/main.js')),
      'run `npm run build` first',
    ).toBe(true);
    const admin = await signedInUser(t(), { admin: true });
    const w = await wfProject(admin);
    const good = await createWorkflow(admin, w.p, {
      nodes: [tnode('a', w.tpl['ok.sh']), tnode('b', w.tpl['out.sh'])],
      edges: [{ from: 'a', to: 'b', on: 'success' }],
    });
    const ok = await gantry('--project', String(w.p), '--workflow', String(good), '--as', admin.username, '--wait');
    expect(ok.code, ok.stderr).toBe(0);
    const id = Number(/Run #(\d+)/.exec(ok.stdout)?.[1]);
    expect(ok.stdout).toMatch(/ended: success/);
    const done = await waitRun(admin, w.p, good, id);
    expect(done.user_id).toBe(admin.id);
    expect(nodeOf(done, 'b')).toMatchObject({ status: 'success', attempts: 1 });

    const bad = await createWorkflow(admin, w.p, { nodes: [tnode('x', w.tpl['fail.sh'])] });
    const failed = await gantry('--project', String(w.p), '--workflow', String(bad), '--wait');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/ended: failed\n {2}x\tfailed\t1 tries\ttasks \d+/);
  });

  it('refuses what does not exist, with a message and nothing started', async () => {
    const admin = await signedInUser(t(), { admin: true });
    const w = await wfProject(admin);
    const wf = await createWorkflow(admin, w.p, { nodes: [tnode('a', w.tpl['ok.sh'])] });
    const cases: Array<[string[], RegExp]> = [
      [['--project', String(w.p)], /--project and --workflow are required/],
      [['--project', String(w.p), '--workflow', String(wf + 1000)], /Workflow not found/],
      [['--project', String(w.p + 1000), '--workflow', String(wf)], /not found/],
      [['--project', String(w.p), '--workflow', String(wf), '--as', 'nobody-here'], /No user with login nobody-here/],
    ];
    for (const [args, message] of cases) {
      const r = await gantry(...args);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    expect((await admin.get(`/api/project/${w.p}/workflows/${wf}/runs`)).json()).toEqual([]);
  });
});
