import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { opensshPrivateKey } from './keys.js';
import { startOutsideHost } from './outside-host.js';

export interface TestSshd {
  /** Where it listens: an outside host's address when the test can make one (root), else 127.0.0.1. */
  host: string;
  port: number;
  user: string;
  /** The client key authorised to log in (OpenSSH format, optionally with a passphrase). */
  privateKey: string;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * An sshd that lets the current user in with one generated key only. It runs on an outside host
 * (its own network namespace, see outside-host.ts) when the test runs as root, as a real deploy
 * target would: tasks in their own network reach it, while the host's loopback stays out of reach.
 */
export async function startSshd(passphrase = ''): Promise<TestSshd> {
  const outside = startOutsideHost();
  const host = outside?.address ?? '127.0.0.1';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-sshd-'));
  const hostKey = path.join(dir, 'host_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  const client = opensshPrivateKey(passphrase);
  const authorized = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorized, client.publicKey, { mode: 0o600 });
  fs.mkdirSync('/run/sshd', { recursive: true });
  const port = await freePort();
  const user = os.userInfo().username;
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      `ListenAddress ${host}`,
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorized}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  const proc: ChildProcess = outside
    ? outside.spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config])
    : spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: 'ignore' });
  const until = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, host, () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > until) throw new Error('sshd did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    host,
    port,
    user,
    privateKey: client.privateKey,
    stop: () => {
      proc.kill('SIGTERM');
      outside?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
