import { createHash } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import { maskSecrets } from '../../../platform/mask-secrets.js';
import { DeliveryError, type NotificationPayload, type OpenDestination } from '../notification-payload.js';
import { DELIVERY_KEEP_DAYS, type DeliveriesRepository, type DeliveryRow } from './deliveries.repository.js';
import { nextAttemptAt } from './retry-policy.js';
import { sendNotification, type SenderContext } from './senders/index.js';

export interface DeliveryWorkerDeps {
  repo: DeliveriesRepository;
  /** The destination with its secrets opened; null when it is gone or inactive. */
  destination(id: number): Promise<OpenDestination | null>;
  clock: Clock;
  /** This node's name in claims (unique per running server). */
  nodeId: string;
  ctx: SenderContext;
  /** How often to look for due rows (default 2000 ms); `wake()` looks at once. */
  pollMs?: number;
  log?(line: string): void;
}

/** Sends at once at most; a slow receiver holds one slot (up to its timeout), never the queue. */
const PARALLEL = 4;
/** Rows looked at per round. */
const BATCH = 20;
/** A claim outlives the longest send (10 s timeout) with room; a node that dies frees its rows after it. */
const CLAIM_MS = 60_000;
/** Stored error texts are cut here. */
const ERROR_CHARS = 500;
const PRUNE_EVERY_MS = 3600_000;

/** The id a receiver sees for a row (`X-Gantry-Delivery`, `payload.id`): from its unique dedup key, so the same on every retry and node. */
export function deliveryPublicId(dedupKey: string): string {
  return createHash('sha256').update(dedupKey).digest('hex').slice(0, 32);
}

/**
 * Advances the delivery queue on this node: claims due rows (one conditional UPDATE each, so two
 * nodes never send one row), sends them, records the outcome, and schedules retries with backoff
 * until the retry window closes. Nothing it meets ends its loop.
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | null = null;
  private started = false;
  private again = false;
  private lastPrune = 0;

  constructor(private readonly deps: DeliveryWorkerDeps) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Stops looking and waits for the sends in flight. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Looks for due rows now (a delivery was just queued). */
  wake(): void {
    if (!this.started) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** One round: every row due now is attempted once; answers how many were attempted. */
  async runDue(): Promise<number> {
    const now = this.deps.clock.now().toISOString();
    const ids = await this.deps.repo.dueIds(now, BATCH);
    let attempted = 0;
    let next = 0;
    const lane = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        if (await this.attempt(id)) attempted += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, ids.length) }, lane));
    return attempted;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (!this.started || this.running) return;
    let attempted = 0;
    const round = (async () => {
      try {
        attempted = await this.runDue();
        await this.pruneNow();
      } catch (e) {
        this.log(`delivery worker: ${(e as Error).message}`);
      }
    })();
    this.running = round;
    await round;
    this.running = null;
    if (!this.started) return;
    // A full round may have left more due rows; a wake during the round asked to look again.
    const more = this.again || attempted > 0;
    this.again = false;
    this.schedule(more ? 0 : (this.deps.pollMs ?? 2000));
  }

  /** Claims and sends one row; answers whether this node attempted it. */
  private async attempt(id: number): Promise<boolean> {
    const { repo, clock, nodeId } = this.deps;
    const now = clock.now();
    const row = await repo.claim(id, nodeId, now.toISOString(), new Date(now.getTime() + CLAIM_MS).toISOString());
    if (!row) return false;
    let dest: OpenDestination | null = null;
    try {
      dest = await this.deps.destination(row.destination_id);
      if (!dest) {
        await repo.markFailed(id, nodeId, null, 'Destination removed or inactive');
        return true;
      }
      const payload = { ...(JSON.parse(row.payload) as NotificationPayload), id: deliveryPublicId(row.dedup_key) };
      const result = await sendNotification(dest, payload, this.deps.ctx);
      await repo.markSent(id, nodeId, clock.now().toISOString(), result.httpStatus);
    } catch (e) {
      await this.failed(row, dest, e).catch((err: Error) => this.log(`delivery ${id}: ${err.message}`));
    }
    return true;
  }

  private async failed(row: DeliveryRow, dest: OpenDestination | null, e: unknown): Promise<void> {
    const known = e instanceof DeliveryError;
    const secrets = dest ? Object.values(dest.secrets) : [];
    // A DeliveryError is masked by its sender; anything else is masked here before it is stored.
    const text = known ? e.message : `Unexpected error: ${(e as Error)?.message ?? String(e)}`;
    const error = maskSecrets(text, secrets).slice(0, ERROR_CHARS);
    const httpStatus = known ? e.httpStatus : null;
    const next =
      known && !e.retryable ? null : nextAttemptAt(new Date(row.created), this.deps.clock.now(), row.attempts);
    if (next) await this.deps.repo.markRetry(row.id, this.deps.nodeId, next.toISOString(), httpStatus, error);
    else await this.deps.repo.markFailed(row.id, this.deps.nodeId, httpStatus, error);
  }

  private async pruneNow(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.deps.repo.prune(new Date(now - DELIVERY_KEEP_DAYS * 86_400_000).toISOString());
  }

  private log(line: string): void {
    this.deps.log?.(line);
  }
}
