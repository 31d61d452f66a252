import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { opensshPrivateKey } from './keys.js';

export interface TestSshd {
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

/** An sshd on 127.0.0.1 that lets the current user in with one generated key only. */
export async function startSshd(passphrase = ''): Promise<TestSshd> {
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
      'ListenAddress 127.0.0.1',
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
  const proc: ChildProcess = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: 'ignore' });
  const until = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
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
    port,
    user,
    privateKey: client.privateKey,
    stop: () => {
      proc.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
