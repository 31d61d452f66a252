import { dbFailureOf } from './db-errors.js';

/** Whether writes go through: `full` while they fail for lack of room in the database or on its disk. */
export type StorageState = 'ok' | 'full';

/**
 * Remembers that writes fail for lack of room, from the first failure that says so, until a write
 * that needs new room goes through again. A query that fits in place (an update, a small insert
 * into a page with space) can succeed on a full database, so only the probe clears the state: a
 * rolled-back write of fresh pages, tried when someone asks (readiness), so a node that a load
 * balancer took out of service finds its way back without traffic.
 */
export class DbHealth {
  private full = false;
  private probing: Promise<StorageState> | null = null;

  /** `probe` throws when the database cannot take a write of new pages (see space-probe.ts). */
  constructor(private readonly probe: () => Promise<void>) {}

  /** Told of every failed query (and by fast paths that bypass Kysely, of theirs). */
  failed(err: unknown): void {
    if (dbFailureOf(err) === 'full') this.full = true;
  }

  /** `full` while writes fail for lack of room; each call while full probes for room again. */
  storage(): Promise<StorageState> {
    if (!this.full) return Promise.resolve('ok');
    this.probing ??= this.probe()
      .then(
        (): StorageState => 'ok',
        // Only a probe that fails for lack of room (or cannot reach the database) keeps the state:
        // one refused for another reason (e.g. a role that may not create tables) says nothing.
        (err: unknown): StorageState => (dbFailureOf(err) === null ? 'ok' : 'full'),
      )
      .then((state) => {
        if (state === 'ok') this.full = false;
        return state;
      })
      .finally(() => {
        this.probing = null;
      });
    return this.probing;
  }
}
