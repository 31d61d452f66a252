import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

/**
 * A host "outside" this machine for tests: its own network namespace joined to the host by a
 * veth pair, as a deploy target on the network would be. Tasks run in their own network
 * namespace without the host's loopback, so services they must reach (an sshd to deploy to)
 * live here. Needs root (CI runs as root); null elsewhere, and callers fall back to loopback.
 */
export interface OutsideHost {
  /** The outside host's address, reachable from the host and from tasks. */
  address: string;
  /** Starts `command` inside the outside host's namespace. */
  spawn(command: string, args: string[]): ChildProcess;
  stop(): void;
}

let counter = 0;

export function startOutsideHost(): OutsideHost | null {
  if (process.getuid?.() !== 0) return null;
  // Names (15 characters at most for links) and a /30 that no other test file running at the same time uses.
  const n = (process.pid * 7 + counter++) % 16_000;
  const ns = `gantry-out-${n}`;
  const hostSide = `gvh${n}`;
  const outSide = `gvo${n}`;
  const net = `198.18.${Math.floor(n / 64)}.${(n % 64) * 4}`;
  const base = net.split('.').map(Number);
  const addr = (last: number) => `${base[0]}.${base[1]}.${base[2]}.${base[3]! + last}`;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', hostSide, 'type', 'veth', 'peer', 'name', outSide);
    ip('link', 'set', outSide, 'netns', ns);
    ip('addr', 'add', `${addr(1)}/30`, 'dev', hostSide);
    ip('link', 'set', hostSide, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${addr(2)}/30`, 'dev', outSide);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', outSide, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  } catch (e) {
    try {
      ip('netns', 'del', ns);
    } catch {
      // Not made.
    }
    throw new Error(`could not make the outside test host: ${(e as Error).message}`);
  }
  const children: ChildProcess[] = [];
  return {
    address: addr(2),
    spawn(command, args) {
      const child = spawn('ip', ['netns', 'exec', ns, command, ...args], { stdio: 'ignore' });
      children.push(child);
      return child;
    },
    stop() {
      for (const c of children) c.kill('SIGTERM');
      try {
        ip('netns', 'del', ns);
      } catch {
        // Already gone.
      }
      try {
        ip('link', 'del', hostSide);
      } catch {
        // Went with the namespace.
      }
    },
  };
}
