import type { Readable, Writable } from 'node:stream';
import type { ProcessSpec } from './process.js';
import { startChild, type StartedChild } from './spawn-host.js';

/**
 * Sets up the task's network before its command runs: bwrap reports the sandbox's pid (fd 3) and
 * waits (fd 4); slirp4netns gives the namespace a way out with the host's loopback disabled, then
 * says it is ready and bwrap goes on. Without a working slirp4netns the task still runs, with its
 * own loopback only.
 */
export function slirpAttach(
  slirp: string,
  rootless: boolean,
  viaUnshare: boolean,
  runAs?: { uid: number; gid: number },
): NonNullable<ProcessSpec['attach']> {
  return {
    pipes: 2,
    start(child) {
      const info = child.stdio[3] as Readable | null;
      const block = child.stdio[4] as Writable | null;
      let net: StartedChild | null = null;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        clearTimeout(guard);
        block?.end('1');
      };
      const guard = setTimeout(release, 10_000);
      block?.on('error', () => undefined);
      info?.on('error', () => undefined);
      let text = '';
      info?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const m = /"child-pid":\s*(\d+)/.exec(text);
        if (!m || net || !child.pid) return;
        // The namespace is unshare's (the process spawned), when unshare made it; else bwrap's sandbox.
        const target = viaUnshare ? child.pid : Number(m[1]);
        const args = [
          ...(rootless ? [`--userns-path=/proc/${child.pid}/ns/user`] : []),
          '--configure',
          '--mtu=65520',
          '--disable-host-loopback',
          '--ready-fd=3',
          String(target),
          'tap0',
        ];
        net = startChild(slirp, args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe'], ...(runAs ?? {}) });
        (net.stdio[3] as Readable).once('data', release);
        net.once('error', release);
        net.once('exit', release);
      });
      return () => {
        clearTimeout(guard);
        net?.kill('SIGKILL');
      };
    },
  };
}
