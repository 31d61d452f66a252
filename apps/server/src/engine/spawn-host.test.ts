import fs from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { startChild, type StartedChild } from './spawn-host.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

const closed = (child: StartedChild) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );

const collect = (stream: Readable | null) => {
  const chunks: Buffer[] = [];
  stream?.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
};

describe('spawn helper', () => {
  it('starts the process from the helper, not from this process, and relays every byte of both pipes', async () => {
    const child = startChild('sh', ['-c', 'echo "$PPID"; seq 1 200000; seq 1 5000 >&2; exit 3'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = collect(child.stdout);
    const err = collect(child.stderr);
    const spawned = new Promise<void>((r) => child.once('spawn', r));
    const end = await closed(child);
    await spawned;
    expect(end).toEqual({ code: 3, signal: null });
    const [parent, ...lines] = out().trimEnd().split('\n');
    expect(Number(parent)).not.toBe(process.pid);
    expect(lines).toHaveLength(200000);
    expect(lines[199999]).toBe('200000');
    expect(err().trimEnd().split('\n')).toHaveLength(5000);
    expect(child.pid).toBeGreaterThan(0);
  });

  it('pauses the pipe in the helper while nobody reads: the child blocks instead of memory filling', async () => {
    const child = startChild('sh', ['-c', 'head -c 50000000 /dev/zero'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const stdout = child.stdout!;
    stdout.pause();
    await new Promise((r) => setTimeout(r, 700));
    // Chunks may be on their way when the pause arrives (how many depends on the Node.js version's
    // buffer sizes and the machine's load: 2.2 MB seen on Node.js 24 at load 3); never the 50 MB.
    expect(stdout.readableLength).toBeLessThan(10_000_000);
    let bytes = 0;
    stdout.on('data', (c: Buffer) => (bytes += c.length));
    stdout.resume();
    await closed(child);
    expect(bytes).toBe(50_000_000);
  });

  it('reports a command that cannot be started as an error, with no close', async () => {
    const child = startChild('/nonexistent/gantry-no-such-tool', [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let closedToo = false;
    child.once('close', () => (closedToo = true));
    const error = await new Promise<Error>((r) => child.once('error', r));
    expect(error.message).toMatch(/ENOENT/);
    await new Promise((r) => setTimeout(r, 100));
    expect(closedToo).toBe(false);
  });

  it('delivers a kill asked for before the helper has answered', async () => {
    const t0 = Date.now();
    const child = startChild('sleep', ['30'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.kill('SIGKILL');
    expect(await closed(child)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('relays extra pipes both ways (what the sandbox network set-up uses: fd 3 out, fd 4 in)', async () => {
    const child = startChild('sh', ['-c', 'echo ready >&3; read answer <&4; echo "got $answer"'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore', 'pipe', 'pipe'],
    });
    const out = collect(child.stdout);
    const info = child.stdio[3] as Readable;
    const block = child.stdio[4] as Writable;
    info.once('data', () => block.end('go\n'));
    await closed(child);
    expect(out()).toBe('got go\n');
  });

  it('sets up a network before the command goes on: the helper starts the network process for the reported pid and lets the command run once it is ready', async () => {
    const dir = fs.mkdtempSync('/tmp/gantry-spawn-');
    // As bwrap does: report the sandbox's pid on fd 3, wait for a byte on fd 4.
    const child = startChild('sh', ['-c', 'echo \'{"child-pid": 4242}\' >&3; head -c1 <&4; echo " went on"'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
      network: {
        command: 'sh',
        // As slirp4netns does: ready on fd 3, then it keeps running until killed.
        args: [
          '-c',
          'echo "$1 $2" > "$0/args"; echo 1 > "$0/started"; echo ready >&3; while :; do sleep 1; done',
          dir,
          '{child}',
          '{target}',
        ],
        targetIsChild: false,
      },
    });
    const out = collect(child.stdout);
    expect(await closed(child)).toEqual({ code: 0, signal: null });
    expect(out()).toBe('1 went on\n');
    expect(fs.readFileSync(`${dir}/args`, 'utf8')).toBe(`${child.pid} 4242\n`);
    // The network process goes with the command (nothing named after this test's folder keeps running).
    await expect
      .poll(() => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && cmdline(p).includes(dir)).length, {
        timeout: 10_000,
      })
      .toBe(0);
    fs.rmSync(dir, { recursive: true });
  });

  it('lets the command go on when the network process cannot start, with its own loopback only', async () => {
    const child = startChild('sh', ['-c', 'echo \'{"child-pid": 7}\' >&3; head -c1 <&4; echo " went on"'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
      network: { command: '/nonexistent/gantry-no-slirp', args: ['{target}'], targetIsChild: true },
    });
    const out = collect(child.stdout);
    expect(await closed(child)).toEqual({ code: 0, signal: null });
    expect(out()).toBe('1 went on\n');
  });

  it('passes the working directory and the environment it is given, and nothing of its own', async () => {
    const dir = fs.mkdtempSync('/tmp/gantry-spawn-');
    const child = startChild('sh', ['-c', 'pwd; env'], {
      cwd: dir,
      env: { ...env, ONLY_THIS: 'yes' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const out = collect(child.stdout);
    await closed(child);
    const lines = out().trim().split('\n');
    expect(lines[0]).toBe(fs.realpathSync(dir));
    const names = lines
      .slice(1)
      .map((l) => l.split('=')[0])
      .filter((n) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(n!));
    expect(names.sort()).toEqual(['ONLY_THIS', 'PATH']);
    fs.rmSync(dir, { recursive: true });
  });
});

function cmdline(pid: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
