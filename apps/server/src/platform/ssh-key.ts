import { createPrivateKey } from 'node:crypto';

const ENCRYPTED_PEM = /^-----BEGIN ENCRYPTED PRIVATE KEY-----|^Proc-Type: 4,ENCRYPTED/m;
const OPENSSH = /^-----BEGIN OPENSSH PRIVATE KEY-----\s+([A-Za-z0-9+/=\s]+?)\s*-----END OPENSSH PRIVATE KEY-----\s*$/;

/**
 * Checks that text is a private key a client could load: PEM/PKCS#8 keys through Node's parser
 * (with the passphrase when encrypted), OpenSSH-format keys by their container structure. The
 * answer is a message that never repeats the key, or null when the key is fine.
 */
export function privateKeyProblem(text: string, passphrase: string): string | null {
  const key = text.trim();
  const openssh = key.match(OPENSSH);
  if (openssh) return opensshProblem(Buffer.from(openssh[1]!.replace(/\s+/g, ''), 'base64'));
  if (!/^-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) return 'Private key is not a valid private key';
  try {
    createPrivateKey({ key, format: 'pem', passphrase: passphrase || undefined });
    return null;
  } catch (err) {
    const msg = String((err as Error).message);
    if (/passphrase|decrypt|bad decrypt/i.test(msg)) return 'Passphrase does not open the private key';
    // A wrong passphrase passes the cipher's padding check about once in 256 tries and then fails
    // as undecodable data, and a missing one fails as "interrupted"; for an encrypted key both
    // mean the passphrase is what to fix.
    if (ENCRYPTED_PEM.test(key)) return 'Passphrase does not open the private key';
    return 'Private key is not a valid private key';
  }
}

function opensshProblem(buf: Buffer): string | null {
  const magic = 'openssh-key-v1\0';
  if (buf.subarray(0, magic.length).toString('latin1') !== magic) return 'Private key is not a valid private key';
  let pos = magic.length;
  const readString = (): Buffer | null => {
    if (pos + 4 > buf.length) return null;
    const len = buf.readUInt32BE(pos);
    pos += 4;
    if (pos + len > buf.length) return null;
    const out = buf.subarray(pos, pos + len);
    pos += len;
    return out;
  };
  const cipher = readString();
  const kdf = readString();
  const kdfOptions = readString();
  if (!cipher || !kdf || !kdfOptions || pos + 4 > buf.length) return 'Private key is not a valid private key';
  const count = buf.readUInt32BE(pos);
  pos += 4;
  if (count < 1) return 'Private key is not a valid private key';
  for (let i = 0; i < count; i++) if (!readString()) return 'Private key is not a valid private key';
  const secret = readString();
  if (!secret || secret.length === 0) return 'Private key is not a valid private key';
  if (cipher.toString() === 'none') {
    // Unencrypted: the private section starts with two equal check integers.
    if (secret.length < 8 || secret.readUInt32BE(0) !== secret.readUInt32BE(4)) {
      return 'Private key is not a valid private key';
    }
  }
  return null;
}
