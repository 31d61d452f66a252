import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The master key for secrets at rest: GANTRY_SECRET_KEY when set, else a key generated once into
 * the data directory (mode 0600) and read back on every later start.
 */
export function resolveSecretKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return deriveKey(configured);
  const file = path.join(dataDir, 'secret.key');
  if (fs.existsSync(file)) return deriveKey(fs.readFileSync(file, 'utf8').trim());
  fs.mkdirSync(dataDir, { recursive: true });
  const generated = randomBytes(32).toString('base64');
  fs.writeFileSync(file, generated + '\n', { mode: 0o600, flag: 'wx' });
  return deriveKey(generated);
}

/** A 32-byte base64 key is used as is; any other passphrase is stretched to 32 bytes. */
function deriveKey(text: string): Buffer {
  const raw = Buffer.from(text, 'base64');
  if (raw.length === 32 && raw.toString('base64') === text) return raw;
  // sha256 suffices: the input is an operator-chosen secret, not a user password.
  return createHash('sha256').update(text).digest();
}
