import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSecretKey } from '../config/secret-key.js';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';

// Written at run time, so the text is in no file a task could find except the victim's workspace.
const VICTIM = [
  'trap \'echo "victim cleaned up"; exit 0\' TERM',
  'echo "victim-$((6*7))-marker" > ../marker.txt',
  'echo ready',
  'while true; do sleep 0.1; done',
  '',
].join('\n');

// Each attempt prints "blocked <what>" when it fails and "LEAK <what>" when it works.
const ATTACKER = [
  'try() { what="$1"; shift; if "$@" 2>/dev/null; then echo "LEAK $what"; else echo "blocked $what"; fi; }',
  'try key cat "$DATA/secret.key"',
  // The data folder shows as an empty stand-in at most (nothing of it is bound into the sandbox).
  'echo "data holds: $(ls -A "$DATA" 2>&1 | tr "\\n" " ")"',
  'try database head -c 64 "$DATA/gantry.sqlite"',
  'try climb-key cat ../../../data/secret.key',
  'echo "climb holds: $(ls -A ../../../data 2>&1 | tr "\\n" " ")"',
  'try victim cat "$VICTIM/marker.txt"',
  'try neighbours test -n "$(ls ../.. | grep -v "^$(basename "$(cd .. && pwd)")$")"',
  'try server-process cat "/proc/$SERVER_PID/environ"',
  'touch "$DATA/planted" 2>/dev/null; true',
  'echo mine > ../own.txt && cat ../own.txt',
  'echo scratch > "/tmp/$SCRATCH" && cat "/tmp/$SCRATCH"',
  '',
].join('\n');

const waitForLine = async (c: Caller, p: number, id: number, line: string) => {
  const until = Date.now() + 30_000;
  while (!(await taskLog(c, p, id)).includes(line)) {
    if (Date.now() > until) throw new Error(`no "${line}" in task ${id}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe.each(engines)('task sandbox ($name)', (engine) => {
  const t = useTestApp(engine);
  let admin: Caller;
  let key = '';

  beforeAll(async () => {
    admin = await signedInUser(t(), { admin: true });
    // The harness hands the key over in memory; a real server keeps it in the data folder.
    resolveSecretKey(undefined, t().config.dataDir);
    key = fs.readFileSync(path.join(t().config.dataDir, 'secret.key'), 'utf8').trim();
  });

  it('runs tasks with bubblewrap here, and tells admins so', async () => {
    expect(t().app.services.sandbox.status()).toMatchObject({ mode: 'bwrap', requested: 'auto' });
    const res = await admin.get('/api/sandbox');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ mode: 'bwrap', requested: 'auto', detail: expect.stringMatching(/bubblewrap/) });
    // Measured in a probe process started as tasks are: never root, no capability, its own network.
    expect(res.json().probe).toMatchObject({ capabilities: '0000000000000000', bounding: '0000000000000000', network: 'isolated', error: null });
    expect(res.json().probe.uid).not.toBe(0);
    const user = await signedInUser(t());
    expect((await user.get('/api/sandbox')).statusCode).toBe(403);
  });

  it('a task sees neither the data folder nor another running task, and can still use its workspace and /tmp', async () => {
    const { dataDir, taskDir } = t().config;
    const p = await createProject(admin);
    const victim = await setupTemplate(admin, p, gitRepo({ 'victim.sh': VICTIM }), {
      app: 'bash',
      playbook: 'victim.sh',
    });
    const victimId = await runTask(admin, p, { template_id: victim.templateId });
    await waitForLine(admin, p, victimId, 'ready');
    const victimDir = path.join(taskDir, `task_${victimId}`);
    // What the attacker is after really is there.
    expect(fs.readFileSync(path.join(victimDir, 'marker.txt'), 'utf8')).toBe('victim-42-marker\n');
    expect(fs.existsSync(path.join(dataDir, 'secret.key'))).toBe(true);

    const scratch = `gantry-scratch-${process.pid}-${Date.now()}`;
    const env = JSON.stringify({ DATA: dataDir, VICTIM: victimDir, SERVER_PID: String(process.pid), SCRATCH: scratch });
    const attacker = await setupTemplate(
      admin,
      p,
      gitRepo({ 'attack.sh': ATTACKER }),
      { app: 'bash', playbook: 'attack.sh' },
      { env },
    );
    const id = await runTask(admin, p, { template_id: attacker.templateId });
    const task = await waitForTask(admin, p, id);
    const log = await taskLog(admin, p, id);
    expect(task.status, log.join('\n')).toBe('success');
    for (const what of ['key', 'database', 'climb-key', 'victim', 'neighbours', 'server-process']) {
      expect(log, what).toContain(`blocked ${what}`);
    }
    expect(log.filter((l) => l.startsWith('LEAK'))).toEqual([]);
    // The real folder holds the database (SQLite), secret.key, node.id...; the task sees none of it.
    expect(fs.readdirSync(dataDir)).toContain('secret.key');
    // Not even the data folder's name leads anywhere: nothing of it is shown.
    expect(log.find((l) => l.startsWith('data holds:'))).toMatch(/No such file or directory|^data holds: $/);
    expect(log.find((l) => l.startsWith('climb holds:'))).toMatch(/No such file or directory|^climb holds: $/);
    expect(log.join('\n')).not.toContain(key);
    expect(log.join('\n')).not.toContain('victim-42-marker');
    expect(log).toContain('mine');
    expect(log).toContain('scratch');
    expect(fs.existsSync(path.join(dataDir, 'planted'))).toBe(false);
    // The sandbox's /tmp was its own.
    expect(fs.existsSync(path.join('/tmp', scratch))).toBe(false);

    // A stop still reaches the script inside the sandbox, which can trap it and clean up.
    expect((await admin.post(`/api/project/${p}/tasks/${victimId}/stop`, { force: false })).statusCode).toBe(204);
    expect((await waitForTask(admin, p, victimId)).status).toBe('stopped');
    expect(await taskLog(admin, p, victimId)).toContain('victim cleaned up');
  });

  it('keeps the data folder and the SQLite files private to the server user', () => {
    expect(fs.statSync(t().config.dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(t().config.dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    if (engine.name === 'sqlite')
      expect(fs.statSync(path.join(t().config.dataDir, 'gantry.sqlite')).mode & 0o777).toBe(0o600);
  });
});

describe.each(engines)('task sandbox off ($name)', (engine) => {
  // A root server's unsandboxed tasks run as the task user, who must reach the task folder (the
  // test's own data folder is 0700).
  const reachable = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-off-'));
  fs.chmodSync(reachable, 0o711);
  afterAll(() => fs.rmSync(reachable, { recursive: true, force: true }));
  const t = useTestApp(engine, { GANTRY_TASK_SANDBOX: 'off', GANTRY_TASK_DIR: path.join(reachable, 'tasks') });

  it('says so first in every task log; the workspace is still outside the data folder', async () => {
    const admin = await signedInUser(t(), { admin: true });
    resolveSecretKey(undefined, t().config.dataDir);
    const status = (await admin.get('/api/sandbox')).json();
    expect(status).toMatchObject({ mode: 'off', requested: 'off', detail: 'GANTRY_TASK_SANDBOX is off' });
    // Even unsandboxed, a root server's tasks never run as root nor keep a capability.
    if (process.getuid?.() === 0) expect(status.probe).toMatchObject({ uid: 65534, capabilities: '0000000000000000', error: null });
    const p = await createProject(admin);
    const script =
      'pwd\nfor up in .. ../.. ../../.. ../../../..; do [ -e "$up/secret.key" ] && echo "key at $up"; done\necho done\n';
    const s = await setupTemplate(admin, p, gitRepo({ 'where.sh': script }), { app: 'bash', playbook: 'where.sh' });
    const id = await runTask(admin, p, { template_id: s.templateId });
    expect((await waitForTask(admin, p, id)).status).toBe('success');
    const log = await taskLog(admin, p, id);
    expect(log[0]).toMatch(/^Tasks are not sandboxed: GANTRY_TASK_SANDBOX is off; /);
    expect(log[1]).toBe(`Task #${id} started`);
    expect(log).toContain(path.join(t().config.taskDir, `task_${id}`, 'repository'));
    expect(path.relative(t().config.dataDir, t().config.taskDir).startsWith('..')).toBe(true);
    expect(log.filter((l) => l.startsWith('key at'))).toEqual([]);
    expect(log).toContain('done');
  });
});
