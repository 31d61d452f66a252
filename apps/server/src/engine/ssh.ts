import fs, { existsSync } from 'node:fs';
import type { KeySecret } from './ports.js';
import type { ProcessLauncher } from './process.js';
import { findExecutable } from './sandbox-paths.js';
import type { Workspace } from './workspace.js';

export interface SshAccess {
  /** Options for `ssh` (also given to git through GIT_SSH_COMMAND and to ansible). */
  sshArgs: string[];
  /** Extra environment (SSH_AUTH_SOCK when an agent holds a passphrase-protected key). */
  env: Record<string, string>;
  keyFile: string | null;
  login: string;
  stop(): void;
}

/**
 * Makes an SSH key usable for one run. Unencrypted keys become a 0600 file; a key with a
 * passphrase is loaded into a private ssh-agent (the passphrase reaches ssh-add through an askpass
 * helper that reads it from its environment, never from argv). Host keys are trusted on first use
 * and remembered per project.
 */
export async function prepareSsh(
  ws: Workspace,
  name: string,
  key: Extract<KeySecret, { type: 'ssh' }>,
  knownHostsFile: string,
  launcher: ProcessLauncher,
  basePath: string,
): Promise<SshAccess> {
  const keyFile = ws.writeSecretFile(`${name}.key`, key.private_key.endsWith('\n') ? key.private_key : key.private_key + '\n');
  const sshArgs = ['-o', 'StrictHostKeyChecking=accept-new', '-o', `UserKnownHostsFile=${knownHostsFile}`, '-o', 'BatchMode=yes'];
  if (!key.passphrase) {
    // Only this key: never whatever else the server's user may have.
    return { sshArgs: ['-o', 'IdentitiesOnly=yes', ...sshArgs, '-i', keyFile], env: {}, keyFile, login: key.login, stop: () => undefined };
  }
  const sock = ws.path('secrets', `${name}.agent.sock`);
  // The agent runs sandboxed as the task's user (ssh-agent serves only its own user and root), with
  // no network; its socket lies in the workspace, where the task's processes find it.
  const sandbox = { writable: [ws.dir], network: false };
  const agent = launcher.start({ ...agentCommand(sock, basePath), cwd: ws.dir, env: { PATH: basePath }, sandbox }, () => undefined);
  await waitForFile(sock, 5000);
  // ssh-add asks again after a wrong passphrase; answering only once makes it give up instead.
  const askpass = ws.writeSecretFile(
    `${name}.askpass`,
    '#!/bin/sh\n[ -e "$GANTRY_ASKPASS_USED" ] && exit 1\n: > "$GANTRY_ASKPASS_USED"\nprintf "%s\\n" "$GANTRY_KEY_PASSPHRASE"\n',
    0o700,
  );
  const add = launcher.start(
    {
      command: 'ssh-add',
      args: ['-q', keyFile],
      cwd: ws.dir,
      env: {
        PATH: basePath,
        SSH_AUTH_SOCK: sock,
        SSH_ASKPASS: askpass,
        SSH_ASKPASS_REQUIRE: 'force',
        DISPLAY: ':0',
        GANTRY_KEY_PASSPHRASE: key.passphrase,
        GANTRY_ASKPASS_USED: ws.path('secrets', `${name}.askpass-used`),
      },
      sandbox,
    },
    () => undefined,
  );
  const guard = setTimeout(() => add.kill('SIGKILL'), 15_000);
  const r = await add.done;
  clearTimeout(guard);
  if (r.code !== 0) {
    agent.kill('SIGTERM');
    throw new Error('The SSH key could not be unlocked with its passphrase');
  }
  // The agent holds the key now: its file goes at once, not at the end of the run.
  fs.rmSync(keyFile, { force: true });
  // The run's own agent holds just this key (HOME is the run's empty home, so no other keys).
  return {
    sshArgs,
    env: { SSH_AUTH_SOCK: sock },
    keyFile: null,
    login: key.login,
    stop: () => agent.kill('SIGTERM'),
  };
}

/**
 * The agent dies with the server, whatever kills the server (kill -9 included): the kernel sends
 * it SIGKILL when its parent goes (setpriv's --pdeathsig; inside the sandbox bwrap's
 * --die-with-parent does the same). --no-new-privs keeps that setting across the exec (Debian's
 * ssh-agent is setgid, and a setgid exec would clear it); the agent needs no privilege.
 * Without setpriv the agent runs as before and start-up removes what a crash left (leftovers.ts).
 */
export function agentCommand(sock: string, basePath: string): { command: string; args: string[] } {
  const agent = ['-D', '-a', sock];
  const setpriv = findExecutable('setpriv', basePath);
  if (!setpriv) return { command: 'ssh-agent', args: agent };
  return { command: setpriv, args: ['--pdeathsig', 'KILL', '--no-new-privs', '--', 'ssh-agent', ...agent] };
}

async function waitForFile(file: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > until) throw new Error('ssh-agent did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** GIT_SSH_COMMAND value: ssh with the options quoted for git's shell-like split. */
export function gitSshCommand(args: string[]): string {
  return ['ssh', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
}
