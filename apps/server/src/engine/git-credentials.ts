import type { KeySecret } from './ports.js';
import type { ProcessLauncher } from './process.js';
import { gitSshCommand, prepareSsh } from './ssh.js';
import type { Workspace } from './workspace.js';

/**
 * The environment git needs to reach a repository with a stored key: GIT_SSH_COMMAND for SSH
 * keys (file or agent), an askpass helper for a login with password (the password travels in the
 * helper's environment, never in argv or the URL). `stop` ends an agent if one was started.
 */
export async function gitEnvironment(
  ws: Workspace,
  name: string,
  key: KeySecret | null,
  knownHosts: string,
  launcher: ProcessLauncher,
  systemPath: string,
): Promise<{ env: Record<string, string>; stop(): void }> {
  const env: Record<string, string> = { PATH: systemPath, HOME: ws.home, GIT_TERMINAL_PROMPT: '0', LANG: 'C.UTF-8' };
  if (key?.type === 'ssh') {
    const ssh = await prepareSsh(ws, `${name}-git`, key, knownHosts, launcher, systemPath);
    Object.assign(env, ssh.env, { GIT_SSH_COMMAND: gitSshCommand(ssh.sshArgs) });
    return { env, stop: () => ssh.stop() };
  }
  if (key?.type === 'login_password') {
    const askpass = ws.writeSecretFile(`${name}-git.askpass`, '#!/bin/sh\ncase "$1" in Username*) printf "%s\\n" "$GANTRY_GIT_LOGIN";; *) printf "%s\\n" "$GANTRY_GIT_PASSWORD";; esac\n', 0o700);
    Object.assign(env, { GIT_ASKPASS: askpass, GANTRY_GIT_LOGIN: key.login, GANTRY_GIT_PASSWORD: key.password });
  }
  return { env, stop: () => undefined };
}
