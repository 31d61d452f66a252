import type { NetworkPlan } from './spawn-host.js';

/**
 * How a sandbox gets its network before its command runs (done by the spawn helper, see
 * sandbox/spawn-helper.mjs): bwrap reports the sandbox's pid (fd 3) and waits (fd 4); slirp4netns
 * gives the namespace a way out with the host's loopback disabled, then says it is ready and bwrap
 * goes on. Without a working slirp4netns the task still runs, with its own loopback only.
 */
export function slirpPlan(
  slirp: string,
  rootless: boolean,
  viaUnshare: boolean,
  runAs?: { uid: number; gid: number },
): NetworkPlan {
  return {
    command: slirp,
    args: [
      ...(rootless ? ['--userns-path=/proc/{child}/ns/user'] : []),
      '--configure',
      '--mtu=65520',
      '--disable-host-loopback',
      '--ready-fd=3',
      // The namespace is unshare's (the process spawned), when unshare made it; else bwrap's sandbox.
      '{target}',
      'tap0',
    ],
    targetIsChild: viaUnshare,
    ...(runAs ?? {}),
  };
}
