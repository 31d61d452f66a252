import type { AuditExportStatus } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { AuditRecorder } from '../audit/audit.port.js';
import type { AuditExportRepository } from './audit-export.repository.js';
import type { AuditTrailReader } from './audit-trail-reader.js';
import { describeSendError, type ExportSink } from './export-sink.js';

/** Tuning of the export loop; the defaults suit production, tests shorten the waits. */
export interface AuditExportOptions {
  /** Entries per delivery. */
  batchSize: number;
  /** A destination further behind than this skips ahead, keeping the newest half. */
  maxPending: number;
  /** How long a node's claim on a destination lasts without renewal. */
  leaseMs: number;
  /** How often an idle node looks for entries other nodes recorded, or for a lease to take over. */
  pollMs: number;
  /** The first retry's delay; each failure in a row doubles it, up to `retryCapMs`. */
  retryBaseMs: number;
  retryCapMs: number;
}

export const DEFAULT_EXPORT_OPTIONS: AuditExportOptions = {
  batchSize: 200,
  maxPending: 100_000,
  leaseMs: 60_000,
  pollMs: 2_000,
  retryBaseMs: 1_000,
  retryCapMs: 30_000,
};

export interface AuditExportDeps {
  repo: AuditExportRepository;
  trail: AuditTrailReader;
  sinks: readonly ExportSink[];
  /** Where the "N entries were not exported" notice goes: the audit trail itself, so every destination hears it. */
  recorder: AuditRecorder;
  clock: Clock;
  nodeId: string;
  /** A line for the server's log (never carries a secret: sinks' targets and errors have none). */
  log: (level: 'info' | 'warn' | 'error', line: string) => void;
  options?: Partial<AuditExportOptions>;
}

/** How long a worker waits before its next step, and whether a newly recorded entry cuts the wait short. */
interface Pause {
  ms: number;
  wakeable: boolean;
}

interface WorkerState {
  ready: boolean;
  /** Whether the sink's own record of what it holds was read (once per start). */
  resumed: boolean;
  /** An entry was recorded since the worker last looked. */
  dirty: boolean;
}

/**
 * Exports the audit trail to each configured destination, driven from the database: a
 * destination's queue is the entries above its cursor, so nothing is held in memory and a restart
 * loses nothing. One worker per destination on each node; the node holding a destination's lease
 * delivers a batch, then moves the cursor (a receiver may see a batch again only when a node
 * died between the two; ids and hashes let it drop them). A receiver that is down is retried
 * with a growing delay; recording an entry only wakes the workers, it never waits for them.
 */
export class AuditExportService {
  private readonly options: AuditExportOptions;
  private readonly states = new Map<string, WorkerState>();
  private readonly wakeups = new Set<() => void>();
  private readonly cancels = new Set<() => void>();
  private workers: Promise<void>[] = [];
  private running = false;

  constructor(private readonly deps: AuditExportDeps) {
    this.options = { ...DEFAULT_EXPORT_OPTIONS, ...deps.options };
  }

  /** Whether any destination is configured. */
  get enabled(): boolean {
    return this.deps.sinks.length > 0;
  }

  /** Starts one worker per destination (nothing when none is configured). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.workers = this.deps.sinks.map((sink) => this.work(sink));
  }

  /** An entry was recorded: idle workers look at once. */
  wake(): void {
    for (const s of this.states.values()) s.dirty = true;
    for (const w of [...this.wakeups]) w();
  }

  /** Lets a delivery under way end, gives the leases up so another node takes over at once, closes the sinks. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const c of [...this.cancels]) c();
    await Promise.all(this.workers);
    this.workers = [];
    for (const sink of this.deps.sinks) {
      await this.deps.repo.release(sink.key, this.deps.nodeId).catch(() => undefined);
      await sink.close?.().catch(() => undefined);
    }
  }

  /** Each destination: where it goes (no secret), how far it got, what is pending, its last success and error. */
  async status(): Promise<AuditExportStatus> {
    const keys = this.deps.sinks.map((s) => s.key);
    const [rows, ends] = await Promise.all([this.deps.repo.list(keys), this.deps.trail.ends()]);
    const now = this.deps.clock.now().toISOString();
    return {
      destinations: this.deps.sinks.map((s) => {
        const r = rows.find((row) => row.destination === s.key);
        const last = r ? Number(r.last_id) : ends.anchorId;
        return {
          key: s.key,
          kind: s.kind,
          target: s.target,
          format: s.format,
          last_exported_id: last,
          pending: Math.max(0, ends.headId - last),
          not_exported: Number(r?.not_exported ?? 0),
          attempts: Number(r?.attempts ?? 0),
          last_success: r?.last_success ?? null,
          last_error: r?.last_error ?? null,
          last_error_time: r?.last_error_time ?? null,
          node: r?.lease_holder && r.lease_expires && r.lease_expires > now ? r.lease_holder : null,
        };
      }),
    };
  }

  private async work(sink: ExportSink): Promise<void> {
    const state: WorkerState = { ready: false, resumed: false, dirty: false };
    this.states.set(sink.key, state);
    while (this.running) {
      let pause: Pause;
      try {
        state.dirty = false;
        pause = await this.step(sink, state);
      } catch (e) {
        // The database did not answer: try again later; the cursor is where it was.
        this.deps.log('error', `audit export to ${sink.kind} (${sink.target}): ${describeSendError(e)}`);
        pause = { ms: this.options.pollMs, wakeable: false };
      }
      if (pause.ms > 0 && !(pause.wakeable && state.dirty)) await this.pause(pause);
    }
    this.states.delete(sink.key);
  }

  /** One look at a destination: skip what cannot be delivered, or deliver one batch. */
  private async step(sink: ExportSink, state: WorkerState): Promise<Pause> {
    const { repo, trail, nodeId } = this.deps;
    const o = this.options;
    const idle: Pause = { ms: o.pollMs, wakeable: true };
    const now = this.deps.clock.now();
    const ends = await trail.ends();
    // A new destination starts with the oldest entry retention kept.
    const row = state.ready ? await repo.get(sink.key) : await repo.ensure(sink.key, sink.target, ends.anchorId);
    state.ready = row !== undefined;
    if (!row) return idle;
    if (Number(row.last_id) >= ends.headId && Number(row.last_id) >= ends.anchorId) return idle;
    if (row.lease_holder && row.lease_holder !== nodeId && row.lease_expires && row.lease_expires >= now.toISOString())
      return { ms: o.pollMs, wakeable: false };
    const held = await repo.claim(
      sink.key,
      nodeId,
      now.toISOString(),
      new Date(now.getTime() + o.leaseMs).toISOString(),
    );
    if (!held) return { ms: o.pollMs, wakeable: false };
    let cursor = Number(held.last_id);

    if (sink.lastDelivered && !state.resumed) {
      state.resumed = true;
      // Written before a crash, cursor not moved: those entries are in the file already.
      const had = await sink.lastDelivered();
      if (had !== null && had > cursor && had <= ends.headId) {
        if (!(await repo.delivered(sink.key, nodeId, cursor, had, now.toISOString())))
          return { ms: 0, wakeable: false };
        cursor = had;
      }
    }

    const floor = this.floor(cursor, ends);
    if (floor > cursor) {
      if (!(await this.skip(sink, cursor, floor, cursor < ends.anchorId ? 'pruned' : 'pending_limit')))
        return { ms: 0, wakeable: false };
      cursor = floor;
    }

    const entries = await trail.after(cursor, o.batchSize);
    if (entries.length === 0) return idle;
    try {
      await sink.send(entries);
    } catch (e) {
      const message = describeSendError(e);
      const attempts = await repo.failed(sink.key, nodeId, message, this.deps.clock.now().toISOString());
      if (attempts === 1 || attempts % 20 === 0)
        this.deps.log(
          'warn',
          `audit export to ${sink.kind} (${sink.target}) failed ${attempts} time(s) in a row, retrying: ${message}`,
        );
      return { ms: this.backoff(attempts), wakeable: false };
    }
    const last = entries[entries.length - 1]!.id;
    const moved = await repo.delivered(sink.key, nodeId, cursor, last, this.deps.clock.now().toISOString());
    if (!moved)
      this.deps.log(
        'warn',
        `audit export to ${sink.kind} (${sink.target}): another node took the destination over during a delivery; it may see entries ${entries[0]!.id}-${last} twice`,
      );
    else if (Number(held.attempts) > 0)
      this.deps.log(
        'info',
        `audit export to ${sink.kind} (${sink.target}) delivers again after ${held.attempts} failure(s)`,
      );
    return { ms: 0, wakeable: false };
  }

  /**
   * Where the cursor must be at least: past what retention pruned and, when more than
   * `maxPending` entries wait, past all but the newest half of them (half, so that the notice the
   * skip records does not tip the destination over the limit again).
   */
  private floor(cursor: number, ends: { headId: number; anchorId: number }): number {
    let floor = Math.max(cursor, ends.anchorId);
    if (ends.headId - floor > this.options.maxPending)
      floor = ends.headId - Math.max(1, Math.floor(this.options.maxPending / 2));
    return floor;
  }

  /** Moves the cursor past entries that will never be delivered, and records one notice saying how many; false when another node moved it. */
  private async skip(
    sink: ExportSink,
    cursor: number,
    floor: number,
    reason: 'pruned' | 'pending_limit',
  ): Promise<boolean> {
    const count = floor - cursor;
    if (!(await this.deps.repo.skipped(sink.key, this.deps.nodeId, cursor, floor, count))) return false;
    const why =
      reason === 'pruned'
        ? 'retention pruned them before they were sent'
        : `the destination was more than ${this.options.maxPending} entries behind`;
    this.deps.log(
      'warn',
      `audit export to ${sink.kind} (${sink.target}): ${count} entries were not exported (ids ${cursor + 1}-${floor}): ${why}`,
    );
    // An entry of the trail itself: this destination receives it next, and the others too.
    await this.deps.recorder.record({
      action: 'export_skipped',
      objectType: 'audit_export',
      objectId: sink.key,
      after: { destination: sink.key, not_exported: count, from_id: cursor + 1, through_id: floor, reason },
      caller: { authKind: 'system', actorId: null, actorLogin: null },
    });
    return true;
  }

  private backoff(attempts: number): number {
    const { retryBaseMs, retryCapMs } = this.options;
    const ms = Math.min(retryCapMs, retryBaseMs * 2 ** Math.min(attempts - 1, 20));
    // A little jitter: nodes and destinations do not retry in step.
    return Math.round(ms * (0.9 + Math.random() * 0.2));
  }

  private pause({ ms, wakeable }: Pause): Promise<void> {
    return new Promise((resolve) => {
      if (!this.running) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.wakeups.delete(done);
        this.cancels.delete(done);
        resolve();
      };
      // The export never keeps a process alive by itself (the server's listener does).
      const timer = setTimeout(done, ms);
      timer.unref();
      this.cancels.add(done);
      if (wakeable) this.wakeups.add(done);
    });
  }
}
