import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A PKCS#8 PEM private key made in-process. */
export function pemPrivateKey(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** An OpenSSH-format private key from ssh-keygen, optionally with a passphrase. */
export function opensshPrivateKey(passphrase = ''): { privateKey: string; publicKey: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-key-'));
  const file = path.join(dir, 'id');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'gantry-test', '-f', file]);
  const out = { privateKey: fs.readFileSync(file, 'utf8'), publicKey: fs.readFileSync(`${file}.pub`, 'utf8') };
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

/** A PKCS#8 key encrypted with the passphrase "right". */
export function encryptedPem(): string {
  return generateKeyPairSync('ed25519')
    .privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'right' })
    .toString();
}
