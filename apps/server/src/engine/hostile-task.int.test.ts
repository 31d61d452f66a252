import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSecretKey } from '../config/secret-key.js';
import { gitRepo } from '../test/git-fixture.js';
import { createProject, engines, signedInUser, useTestApp, type Caller } from '../test/harness.js';
import { startSshd, type TestSshd } from '../test/sshd.js';
import { runTask, setupTemplate, taskLog, waitForTask } from '../test/tasks.js';
import { createProcessLauncher } from './process.js';
import { TaskSandbox } from './sandbox.js';

/**
 * A task is hostile code. This script tries, from inside a task, what an attacker with a
 * template (a manager, or anyone who can push to its repository) would: every step prints
 * "blocked <what>" when it fails and "LEAK <what>" when it works.
 */
const ATTACK = [
  'try() { what="$1"; shift; if "$@" >/dev/null 2>&1; then echo "LEAK $what"; else echo "blocked $what"; fi; }',
  'try root test "$(id -u)" = 0',
  // Any bit set in the effective or bounding capability set.
  'try capabilities grep -Eq "^Cap(Eff|Prm|Bnd):\\s*0*[1-9a-f]" /proc/self/status',
  'try umount umount -l /tmp',
  'try remount mount -o remount,rw /',
  'try write-system touch /usr/gantry-planted',
  'try data-key cat "$DATA/secret.key"',
  'try gantry-env cat "$ENV_FILE"',
  'try shadow cat /etc/shadow',
  'try root-home ls /root',
  // A service on the host's loopback (Gantry's own port, PostgreSQL, Redis... stand for it).
  'try loopback-service bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; head -c 4 <&3 | grep -q BAIT"',
  'try host-through-gateway bash -c "exec 3<>/dev/tcp/10.0.2.2/$PORT; head -c 4 <&3 | grep -q BAIT"',
  'try postgres-tcp bash -c "exec 3<>/dev/tcp/127.0.0.1/5432"',
  'try mariadb-tcp bash -c "exec 3<>/dev/tcp/127.0.0.1/3306"',
  'try redis-tcp bash -c "exec 3<>/dev/tcp/127.0.0.1/6379"',
  // Unix sockets of the host's services.
  'try unix-socket test -S "$SOCKET"',
  'try postgres-socket test -S /run/postgresql/.s.PGSQL.5432',
  'try mariadb-socket test -S /run/mysqld/mysqld.sock',
  // What a deploy needs still works: an outside host answers.
  'if bash -c "exec 3<>/dev/tcp/$OUTSIDE/$OUTSIDE_PORT; head -c 7 <&3" 2>/dev/null | grep -q SSH-2.0; then echo "reached outside"; else echo "no outside"; fi',
  'echo done',
  '',
].join('\n');

const asRoot = process.getuid?.() === 0;

describe.each(engines)('a hostile task ($name)', (engine) => {
  const t = useTestApp(engine);
  let admin: Caller;
  let bait: net.Server;
  let baitPort = 0;
  let socketServer: net.Server;
  let sshd: TestSshd;
  const socket = path.join(asRoot ? '/run' : os.tmpdir(), `gantry-bait-${process.pid}-${engine.name}.sock`);
  // The documented settings file; made for the test when this run may (root), else a stand-in.
  const etcDir = asRoot ? '/etc/gantry' : fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-etc-'));
  const envFile = path.join(etcDir, `test-${process.pid}-${engine.name}.env`);
  let madeEtc = false;

  beforeAll(async () => {
    admin = await signedInUser(t(), { admin: true });
    resolveSecretKey(undefined, t().config.dataDir);
    bait = net.createServer((c) => c.end('BAIT')).listen(0, '127.0.0.1');
    await new Promise((r) => bait.once('listening', r));
    baitPort = (bait.address() as net.AddressInfo).port;
    fs.rmSync(socket, { force: true });
    socketServer = net.createServer((c) => c.end('BAIT')).listen(socket);
    await new Promise((r) => socketServer.once('listening', r));
    fs.chmodSync(socket, 0o777);
    if (!fs.existsSync(etcDir)) {
      fs.mkdirSync(etcDir, { mode: 0o755 });
      madeEtc = true;
    }
    // World-readable on purpose: the sandbox, not the mode, must keep it from tasks.
    fs.writeFileSync(envFile, 'GANTRY_SECRET_KEY=bait-master-key\n', { mode: 0o644 });
    sshd = await startSshd();
  });

  afterAll(() => {
    bait?.close();
    socketServer?.close();
    fs.rmSync(socket, { force: true });
    fs.rmSync(envFile, { force: true });
    if (madeEtc) fs.rmSync(etcDir, { recursive: true, force: true });
    sshd?.stop();
  });

  it('fails at every step: no root, no capability, no mount, no host file, port or socket; outside hosts still answer', async () => {
    const p = await createProject(admin);
    const env = JSON.stringify({
      DATA: t().config.dataDir,
      ENV_FILE: envFile,
      PORT: String(baitPort),
      SOCKET: socket,
      OUTSIDE: sshd.host,
      OUTSIDE_PORT: String(sshd.port),
    });
    const s = await setupTemplate(
      admin,
      p,
      gitRepo({ 'attack.sh': ATTACK }),
      { app: 'bash', playbook: 'attack.sh' },
      { env },
    );
    const id = await runTask(admin, p, { template_id: s.templateId });
    const task = await waitForTask(admin, p, id);
    const log = await taskLog(admin, p, id);
    expect(task.status, log.join('\n')).toBe('success');
    expect(
      log.filter((l) => l.startsWith('LEAK')),
      log.join('\n'),
    ).toEqual([]);
    const steps = [
      'root',
      'capabilities',
      'umount',
      'remount',
      'write-system',
      'data-key',
      'gantry-env',
      'loopback-service',
      'host-through-gateway',
    ];
    steps.push('postgres-tcp', 'mariadb-tcp', 'redis-tcp', 'unix-socket', 'postgres-socket', 'mariadb-socket');
    // A root server's tasks run as an unprivileged user: root-only files stay closed to them.
    if (asRoot) steps.push('shadow', 'root-home');
    for (const what of steps) expect(log, what).toContain(`blocked ${what}`);
    expect(log.join('\n')).not.toContain('bait-master-key');
    expect(log).toContain('done');
    // Only when this run could make an outside host (root): a deploy target elsewhere on the network.
    if (sshd.host !== '127.0.0.1') expect(log).toContain('reached outside');
    expect(fs.existsSync('/usr/gantry-planted')).toBe(false);
  }, 90_000);
});

/**
 * The same guarantees when the server itself is not root: the sandbox is built and started as an
 * unprivileged server would (its bwrap, unshare and slirp4netns run as that user).
 */
describe.runIf(asRoot)('a hostile task of a non-root server', () => {
  const base = fs.mkdtempSync(path.join('/var/tmp', 'gantry-nonroot-'));
  const data = path.join(base, 'data');
  const ws = path.join(base, 'tasks', 'task_1');
  let bait: net.Server;
  let port = 0;
  let sshd: TestSshd;

  beforeAll(async () => {
    fs.chmodSync(base, 0o755);
    fs.mkdirSync(data, { mode: 0o700 });
    fs.writeFileSync(path.join(data, 'secret.key'), 'bait-secret-key\n', { mode: 0o600 });
    fs.mkdirSync(ws, { recursive: true, mode: 0o700 });
    // The unprivileged server owns its folders, as systemd's StateDirectory makes them.
    for (const d of [data, path.join(data, 'secret.key'), path.dirname(ws), ws]) fs.chownSync(d, 65534, 65534);
    bait = net.createServer((c) => c.end('BAIT')).listen(0, '127.0.0.1');
    await new Promise((r) => bait.once('listening', r));
    port = (bait.address() as net.AddressInfo).port;
    sshd = await startSshd();
  });
  afterAll(() => {
    bait?.close();
    sshd?.stop();
    fs.rmSync(base, { recursive: true, force: true });
  });

  /** The sandbox a root server gives its tasks: bwrap, its own network, as nobody. */
  const isolatedSandbox = () =>
    new TaskSandbox({
      requested: 'bwrap',
      network: 'isolated',
      taskUser: null,
      hide: [data, path.dirname(ws)],
      systemPath: process.env.PATH ?? '/usr/bin:/bin',
      runAs: { uid: 65534, gid: 65534 },
    });

  it('keeps no capability, reaches no loopback service and no data, and still reaches outside hosts', async () => {
    const sandbox = isolatedSandbox();
    expect(sandbox.check().mode).toBe('bwrap');
    const launcher = createProcessLauncher(sandbox);
    const lines: string[] = [];
    const script = [
      'try() { what="$1"; shift; if "$@" >/dev/null 2>&1; then echo "LEAK $what"; else echo "blocked $what"; fi; }',
      'echo "uid $(id -u)"',
      'try capabilities grep -Eq "^Cap(Eff|Prm|Bnd):\\s*0*[1-9a-f]" /proc/self/status',
      `try data-key cat ${path.join(data, 'secret.key')}`,
      `try loopback-service bash -c "exec 3<>/dev/tcp/127.0.0.1/${port}; head -c 4 <&3 | grep -q BAIT"`,
      'try postgres-socket test -S /run/postgresql/.s.PGSQL.5432',
      'try remount mount -o remount,rw /',
      `if bash -c "exec 3<>/dev/tcp/${sshd.host}/${sshd.port}; head -c 7 <&3" 2>/dev/null | grep -q SSH-2.0; then echo "reached outside"; fi`,
      'echo mine > own.txt && cat own.txt',
    ].join('\n');
    const run = launcher.start(
      {
        command: 'bash',
        args: ['-c', script],
        cwd: ws,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: ws },
        sandbox: { writable: [ws] },
      },
      (l) => lines.push(l),
    );
    const r = await run.done;
    expect(r.code, lines.join('\n')).toBe(0);
    expect(lines).toContain('uid 65534');
    expect(
      lines.filter((l) => l.startsWith('LEAK')),
      lines.join('\n'),
    ).toEqual([]);
    for (const what of ['capabilities', 'data-key', 'loopback-service', 'postgres-socket', 'remount'])
      expect(lines, what).toContain(`blocked ${what}`);
    expect(lines).toContain('mine');
    if (sshd.host !== '127.0.0.1') expect(lines).toContain('reached outside');
    const probe = await sandbox.measure(launcher);
    expect(probe).toMatchObject({ uid: 65534, capabilities: '0000000000000000', network: 'isolated', error: null });
  }, 60_000);

  it('a stop asked for as the sandbox starts (nothing inside it yet) still ends it', async () => {
    const sandbox = isolatedSandbox();
    const launcher = createProcessLauncher(sandbox);
    for (const when of ['at once', 'on start']) {
      const t0 = Date.now();
      const run = launcher.start(
        {
          command: 'sleep',
          args: ['60'],
          cwd: ws,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: ws },
          sandbox: { writable: [ws] },
        },
        () => undefined,
      );
      if (when === 'at once') run.kill('SIGTERM');
      else
        await new Promise<void>((r) => {
          const poll = () => (run.pid ? (run.kill('SIGTERM'), r()) : setTimeout(poll, 1));
          poll();
        });
      const r = await run.done;
      expect(r.code === 0, when).toBe(false);
      expect(Date.now() - t0, when).toBeLessThan(20_000);
    }
  }, 60_000);
});
