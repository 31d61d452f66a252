import type { SandboxProbe } from '@gantry/contracts';
import type { ProcessLauncher } from './process.js';
import { userName } from './task-user.js';

/** Runs `cat /proc/self/status /proc/net/dev` as a task would be run and reads what it is. */
export async function measureProbe(launcher: ProcessLauncher, systemPath: string): Promise<SandboxProbe> {
  const lines: string[] = [];
  const run = launcher.start(
    {
      command: 'cat',
      args: ['/proc/self/status', '/proc/net/dev'],
      cwd: '/',
      env: { PATH: systemPath },
      sandbox: { writable: [] },
    },
    (l) => lines.push(l),
  );
  const timer = setTimeout(() => run.kill('SIGKILL'), 15_000);
  const r = await run.done;
  clearTimeout(timer);
  const field = (name: string) => lines.find((l) => l.startsWith(`${name}:`))?.split(/\s+/)[1] ?? null;
  if (r.code !== 0 || !field('Uid')) {
    return {
      uid: null,
      user: null,
      capabilities: null,
      bounding: null,
      network: null,
      error: r.spawnError ?? `the probe exited with ${r.code ?? r.signal}`,
    };
  }
  // Uid: real, effective, saved, filesystem: the effective one is what the kernel checks.
  const uid = Number(lines.find((l) => l.startsWith('Uid:'))!.split(/\s+/)[2]);
  // /proc/net/dev: two header lines, then one "name: counters" line per interface.
  const header = lines.findIndex((l) => l.includes('|bytes'));
  const interfaces =
    header < 0
      ? []
      : lines
          .slice(header + 1)
          .map((l) => l.trim().split(':')[0]!)
          .filter(Boolean);
  const others = interfaces.filter((i) => i !== 'lo');
  const network =
    others.length === 0 ? 'loopback-only' : others.length === 1 && others[0] === 'tap0' ? 'isolated' : 'host';
  return { uid, user: userName(uid), capabilities: field('CapEff'), bounding: field('CapBnd'), network, error: null };
}
