import { dbFailureOf, describeDbError } from '../db/db-errors.js';

/**
 * A rejected promise nobody handled ends Node's process. One that is only the database gone away
 * or full (a background job without its own catch) must not take the whole node down: it is told
 * to stderr and the node goes on; any other rejection still ends the process, as Node would.
 */
export function surviveDatabaseRejections(dbUrl: string): void {
  process.on('unhandledRejection', (reason) => {
    if (dbFailureOf(reason) === null) throw reason;
    process.stderr.write(`database: a background job failed (${describeDbError(reason, dbUrl)}); the server carries on\n`);
  });
}
