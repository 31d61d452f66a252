import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * This server's identity, kept in its data directory: after a restart it recognises the tasks
 * its previous life was running.
 */
export function resolveNodeId(dataDir: string): string {
  const file = path.join(dataDir, 'node.id');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const id = randomBytes(8).toString('hex');
    fs.writeFileSync(file, id + '\n', { mode: 0o600 });
    return id;
  }
}
