import { dbFailureOf } from '../db/db-errors.js';

/**
 * Whether a database error means the database or its disk is full, on any engine. A run that met
 * it ends as `error` even when every line got stored in the end, as an operator must hear that the
 * disk filled under it; a mere connection outage that lost nothing leaves the outcome alone.
 */
export function isDiskFull(e: unknown): boolean {
  return dbFailureOf(e) === 'full';
}
