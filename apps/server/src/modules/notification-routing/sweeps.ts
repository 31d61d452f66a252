import type { NotificationEventName } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { ruleEvents } from './notification-routing.presenter.js';
import type { NotificationRouter } from './router.js';
import type { RoutingRepository } from './routing.repository.js';
import type { RuleRow, RulesRepository } from './rules.repository.js';

export interface RoutingSweepsDeps {
  router: Pick<NotificationRouter, 'route'>;
  rules: Pick<RulesRepository, 'withEvent'>;
  repo: RoutingRepository;
  clock: Clock;
  /** How often the database is looked at (default 5 s). */
  intervalMs?: number;
  /** A runner silent this long shows as offline (the runners module fails its tasks then too). */
  runnerTimeoutMs: number;
  log?: (line: string) => void;
}

const DEFAULT_INTERVAL_MS = 5000;
const DEFAULT_LONG_RUNNING_MINUTES = 30;
const DEFAULT_DIGEST_HOUR = 8;

/**
 * The events nothing announces: a task that started, one running too long, a runner gone silent,
 * the daily digest. Every node sweeps the database; the deliveries' unique dedup key lets both
 * find the same thing and only one row be queued.
 */
export class RoutingSweeps {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The previous scan's time: the next one looks back to it (and an interval more) for started tasks. */
  private lastScan: Date | undefined;

  constructor(private readonly d: RoutingSweepsDeps) {}

  private get intervalMs(): number {
    return this.d.intervalMs ?? DEFAULT_INTERVAL_MS;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweep()
        .catch((e: unknown) => this.d.log?.(`notification sweep failed: ${(e as Error).message}`))
        .finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One look at the database at `now`; each kind on its own, so one failing leaves the others. */
  async sweep(now: Date = this.d.clock.now()): Promise<void> {
    const steps = [
      () => this.started(now),
      () => this.longRunning(now),
      () => this.runnersOffline(now),
      () => this.digests(now),
    ];
    for (const step of steps) {
      try {
        await step();
      } catch (e) {
        this.d.log?.(`notification sweep failed: ${(e as Error).message}`);
      }
    }
    this.lastScan = now;
  }

  private async started(now: Date): Promise<void> {
    const rules = await this.rulesFor('task_started');
    if (rules.length === 0) return;
    // Overlapping the previous scan by an interval and more: a start written late is still seen.
    const from = Math.min((this.lastScan ?? now).getTime(), now.getTime()) - 3 * this.intervalMs;
    for (const t of await this.d.repo.startedSince(new Date(from).toISOString(), projectsOf(rules)))
      await this.d.router.route({ type: 'task_started', taskId: t.id });
  }

  private async longRunning(now: Date): Promise<void> {
    const rules = await this.rulesFor('long_running');
    if (rules.length === 0) return;
    const minutes = Math.min(...rules.map((r) => r.long_running_minutes ?? DEFAULT_LONG_RUNNING_MINUTES));
    const before = new Date(now.getTime() - minutes * 60_000).toISOString();
    for (const t of await this.d.repo.runningSince(before, projectsOf(rules)))
      await this.d.router.route({ type: 'long_running', taskId: t.id, now });
  }

  private async runnersOffline(now: Date): Promise<void> {
    if ((await this.rulesFor('runner_offline')).length === 0) return;
    const cutoff = new Date(now.getTime() - this.d.runnerTimeoutMs).toISOString();
    for (const r of await this.d.repo.silentRunners(cutoff))
      if (r.touched) await this.d.router.route({ type: 'runner_offline', runner: { ...r, touched: r.touched } });
  }

  private async digests(now: Date): Promise<void> {
    const due = (await this.rulesFor('digest')).filter(
      (r) => (r.digest_hour ?? DEFAULT_DIGEST_HOUR) === now.getUTCHours(),
    );
    for (const projectId of new Set(due.map((r) => r.project_id)))
      await this.d.router.route({ type: 'digest', projectId, now });
  }

  private async rulesFor(event: NotificationEventName): Promise<RuleRow[]> {
    return (await this.d.rules.withEvent(event)).filter((r) => ruleEvents(r).includes(event));
  }
}

/** The projects whose tasks matter to these rules; a global rule makes it every project. */
function projectsOf(rules: RuleRow[]): number[] | 'all' {
  if (rules.some((r) => r.project_id === null)) return 'all';
  return [...new Set(rules.map((r) => r.project_id as number))];
}
