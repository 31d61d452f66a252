import { loadConfig } from '../config/config.js';
import { createDb } from '../db/db.js';
import { AuditRepository } from '../modules/audit/audit.repository.js';
import { AuditService } from '../modules/audit/audit.service.js';
import { systemClock } from '../platform/clock.js';
import { VERSION } from '../version.js';

/**
 * `gantry audit verify`: walks the audit chain of the database the configuration names
 * (GANTRY_DB_URL, else the data directory's SQLite file) without changing anything. Answers the
 * exit code: 0 on an intact chain (with the number of entries), 1 naming the first bad entry.
 */
export async function auditCommand(sub: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (sub !== 'verify') {
    process.stderr.write('Usage: gantry audit verify\n');
    return 2;
  }
  const config = loadConfig(env, VERSION);
  const db = createDb(config.dbUrl);
  try {
    const audit = new AuditService(new AuditRepository(db.db), systemClock, async () => null);
    const result = await audit.verify();
    if (result.ok) {
      process.stdout.write(`Audit chain intact: ${result.count} entr${result.count === 1 ? 'y' : 'ies'} verified.\n`);
      return 0;
    }
    process.stderr.write(
      `Audit chain broken at entry ${result.badId}: ${result.reason} (${result.count} entries before it verified).\n`,
    );
    return 1;
  } finally {
    await db.close();
  }
}
