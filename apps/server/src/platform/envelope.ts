import { constants, createCipheriv, createDecipheriv, generateKeyPair, privateDecrypt, publicEncrypt, randomBytes } from 'node:crypto';
import type { SealedEnvelope } from '@gantry/contracts';

const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' } as const;

/** A fresh RSA key pair (PEM) for a runner: the server keeps the public half only. */
export function generateRunnerKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
  return new Promise((resolve, reject) =>
    generateKeyPair(
      'rsa',
      { modulusLength: 3072, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } },
      (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKey, privateKey })),
    ),
  );
}

/** Encrypts `plain` so only the holder of the private key can read it (RSA-OAEP-SHA256 + AES-256-GCM). */
export function sealTo(publicKeyPem: string, plain: string): SealedEnvelope {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return {
    alg: 'RSA-OAEP-256+A256GCM',
    key: publicEncrypt({ key: publicKeyPem, ...OAEP }, key).toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

/** Opens what `sealTo` sealed; throws when the key does not match or the data was altered. */
export function openSealed(privateKeyPem: string, e: SealedEnvelope): string {
  const key = privateDecrypt({ key: privateKeyPem, ...OAEP }, Buffer.from(e.key, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(e.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(e.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(e.data, 'base64')), decipher.final()]).toString('utf8');
}
