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
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const generated = randomBytes(32).toString('base64');
  fs.writeFileSync(file, generated + '\n', { mode: 0o600, flag: 'wx' });
  return deriveKey(generated);
}

/** Where the master key comes from: GANTRY_SECRET_KEY, or the key file in the data directory. */
export type SecretKeySource = { kind: 'env' } | { kind: 'file'; file: string; exists: boolean };

export function secretKeySource(configured: string | undefined, dataDir: string): SecretKeySource {
  if (configured) return { kind: 'env' };
  const file = path.join(dataDir, 'secret.key');
  return { kind: 'file', file, exists: fs.existsSync(file) };
}

/** How messages name the key's origin. */
export function describeSecretKeySource(source: SecretKeySource): string {
  return source.kind === 'env' ? 'GANTRY_SECRET_KEY' : source.file;
}

/** A key given by the operator (`gantry rekey`), in the same forms GANTRY_SECRET_KEY takes. */
export function parseSecretKey(text: string): Buffer {
  return deriveKey(text);
}

/** Where `gantry rekey` stages the new key: `<data dir>/secret.key.new`. */
export function stagedSecretKeyPath(dataDir: string): string {
  return path.join(dataDir, 'secret.key.new');
}

/**
 * The key in `secret.key.new`, when the master key comes from the key file and a rekey left one
 * there: after a rekey that stopped between its commit and the rename, it is the key that opens
 * the database. Undefined when there is none (or it is empty).
 */
export function readStagedSecretKey(
  configured: string | undefined,
  dataDir: string,
): { file: string; key: Buffer } | undefined {
  if (configured) return undefined;
  const file = stagedSecretKeyPath(dataDir);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return text ? { file, key: deriveKey(text) } : undefined;
}

/** Removes `secret.key.new`; only for one found not to open the database (a useless leftover). */
export function removeStagedSecretKey(dataDir: string): void {
  fs.rmSync(stagedSecretKeyPath(dataDir), { force: true });
}

/**
 * Writes a new key file beside the current one (mode 0600) without touching it: `commit` renames
 * it into place (atomic), `discard` removes it. Used so a failure leaves the current key as it was.
 * An existing `secret.key.new` is never overwritten (EEXIST): it may be the only copy of the key
 * that opens the database; the caller decides about it first.
 */
export function stageSecretKeyFile(dataDir: string, text: string): { commit(): void; discard(): void } {
  const file = path.join(dataDir, 'secret.key');
  const staged = stagedSecretKeyPath(dataDir);
  const fd = fs.openSync(staged, 'wx', 0o600);
  try {
    fs.writeSync(fd, text + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return {
    commit: () => fs.renameSync(staged, file),
    discard: () => fs.rmSync(staged, { force: true }),
  };
}

/** A 32-byte base64 key is used as is; any other passphrase is stretched to 32 bytes. */
function deriveKey(text: string): Buffer {
  const raw = Buffer.from(text, 'base64');
  if (raw.length === 32 && raw.toString('base64') === text) return raw;
  // sha256 suffices: the input is an operator-chosen secret, not a user password.
  return createHash('sha256').update(text).digest();
}
