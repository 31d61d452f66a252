import type { OpsRepository } from './ops.repository.js';

/** Each check's outcome: `ok`, or a short reason a load balancer's operator can act on. */
export interface ReadinessChecks {
  database: string;
  migrations: string;
  bus: string;
  /** Present only while the node drains for a shutdown (`draining`): it takes no new task. */
  shutdown?: string;
}

export interface Readiness {
  ready: boolean;
  checks: ReadinessChecks;
}

export interface ReadinessDeps {
  repo: Pick<OpsRepository, 'ping' | 'appliedMigrations'>;
  /** The migrations this build expects to find applied. */
  migrations: readonly string[];
  /** `full` while writes fail for lack of room (DbHealth; it probes for room again when asked). */
  storage?: () => Promise<'ok' | 'full'>;
  /** Whether the event bus reaches the other nodes (always true in process). */
  busConnected: () => boolean;
  /** Whether the node is stopping (SIGTERM): it finishes its tasks and takes no new work. */
  draining?: () => boolean;
  /** A database that takes longer than this to answer counts as down. */
  timeoutMs?: number;
}

/**
 * Whether this node should get traffic: the database answers and takes writes (`full` while they
 * fail for lack of room), its schema is the one this build expects (a node started before a newer
 * one migrated, or a half-migrated database, is not ready), and the bus is connected. Reasons
 * never carry a database error's text: that goes to the log.
 */
export class ReadinessService {
  constructor(private readonly d: ReadinessDeps) {}

  async check(): Promise<Readiness & { failure?: unknown }> {
    const bus = this.d.busConnected() ? 'ok' : 'not connected';
    let failure: unknown;
    let database = 'ok';
    let migrations = 'not checked';
    try {
      await this.within(this.d.repo.ping());
      if (this.d.storage && (await this.within(this.d.storage())) === 'full') database = 'full';
      try {
        const applied = new Set(await this.within(this.d.repo.appliedMigrations()));
        const missing = this.d.migrations.filter((m) => !applied.has(m));
        migrations = missing.length === 0 ? 'ok' : `not applied: ${missing.join(', ')}`;
      } catch (e) {
        failure = e;
        migrations = 'failed';
      }
    } catch (e) {
      failure = e;
      database = 'failed';
    }
    const checks: ReadinessChecks = { database, migrations, bus, ...(this.d.draining?.() ? { shutdown: 'draining' } : {}) };
    return { ready: Object.values(checks).every((c) => c === 'ok'), checks, failure };
  }

  private within<T>(p: Promise<T>): Promise<T> {
    const ms = this.d.timeoutMs ?? 2_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }
}
