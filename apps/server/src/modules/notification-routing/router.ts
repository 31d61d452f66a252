import type { NotificationEventName, PlanSummary } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { NotificationMessage } from '../notifications/notification-message.js';
import { deliveryPublicId } from './delivery/delivery-worker.js';
import type { DeliveryToEnqueue, NotificationPayload } from './notification-payload.js';
import { ruleEvents } from './notification-routing.presenter.js';
import { approvalMessageOf, payloadOf, taskMessage, taskParts, type PayloadParts } from './routing-payload.js';
import type { RoutedTask, RoutingRepository } from './routing.repository.js';
import type { RoutedRuleRow, RulesRepository } from './rules.repository.js';

/** Something that may notify: what NotificationsService hears, and what the sweeps find. */
export type RoutingEvent =
  | {
      type: 'task';
      taskId: number;
      status: string;
      drift?: { workspace: string | null; summary: PlanSummary | null };
    }
  | { type: 'task_started'; taskId: number }
  | { type: 'long_running'; taskId: number; now: Date }
  | { type: 'approval'; message: NotificationMessage }
  | { type: 'runner_offline'; runner: { id: number; project_id: number | null; name: string; touched: string } }
  | { type: 'digest'; projectId: number | null; now: Date };

export interface RouterDeps {
  rules: Pick<RulesRepository, 'routed'>;
  repo: RoutingRepository;
  queue: { enqueue(rows: DeliveryToEnqueue[], now: string): Promise<number> };
  /** Tells the delivery worker rows wait (it polls anyway). */
  wake(): void;
  clock: Clock;
  webHost: string;
  /** A Terraform task's plan summary, when it made one. */
  planOf(taskId: number): Promise<PlanSummary | null>;
}

/** The facts of one event the rules are matched against. */
interface Facts {
  projectId: number | null;
  task: RoutedTask | null;
  templateId: number | null;
  /** The subject's key in the dedup key (`task:12`, `approval:3`). */
  key: string;
  subject: string;
  parts: PayloadParts;
}

const DEFAULT_LONG_RUNNING_MINUTES = 30;
const DEFAULT_DIGEST_HOUR = 8;
const DIGEST_FAILING_MAX = 10;

/**
 * Turns an event into deliveries: the rules of its project and the global ones, the most specific
 * per destination (schedule > template > project-wide; an empty list silences), their filters,
 * then one queued row per destination. The dedup key makes a second enqueue (another node, a
 * sweep seeing the same thing again) a no-op.
 */
export class NotificationRouter {
  constructor(private readonly d: RouterDeps) {}

  /** Queues what the event's rules ask for; answers how many rows were new. */
  async route(e: RoutingEvent): Promise<number> {
    // A status no rule can name (a rejected task) costs no query.
    if (simpleEventName(e) === null) return 0;
    const facts = await this.facts(e);
    if (!facts) return 0;
    // A runner or a digest belongs to one scope: a project's go to its rules, global ones to the global rules.
    const scoped = e.type === 'runner_offline' || e.type === 'digest';
    const rules = (await this.d.rules.routed(facts.projectId)).filter(
      (r) => r.destination_active === 1 && (!scoped || r.project_id === facts.projectId),
    );
    // A sweep's event carries the time it looked at (a long run's minutes, a digest's hour); rows are queued now.
    const queued = this.d.clock.now();
    const now = 'now' in e ? e.now : queued;
    const rows: DeliveryToEnqueue[] = [];
    let previous: Promise<string | null> | undefined;
    for (const [destinationId, group] of effectiveRules(rules, facts.templateId, facts.task?.schedule_id ?? null)) {
      const wanted = new Set(group.flatMap((r) => ruleEvents(r)));
      let name = simpleEventName(e);
      if (name === 'task_succeeded' && wanted.has('task_fixed') && facts.task) {
        previous ??= this.d.repo.previousFinished(facts.task.template_id, facts.task.id);
        if ((await previous) === 'error') name = 'task_fixed';
      }
      if (!name || !wanted.has(name)) continue;
      const event = name;
      const matching = group.filter(
        (r) => ruleEvents(r).includes(event) && passes(r, facts.task) && fits(e, r, facts.task, now),
      );
      if (matching.length === 0) continue;
      const dedupKey = `${event}:${facts.key}:d${destinationId}`;
      rows.push({
        destinationId,
        projectId: facts.projectId,
        dedupKey,
        event,
        subject: facts.subject,
        taskId: facts.task?.id ?? null,
        templateId: facts.templateId,
        payload: await this.payload(e, event, deliveryPublicId(dedupKey), facts, now),
      });
    }
    if (rows.length === 0) return 0;
    const added = await this.d.queue.enqueue(rows, queued.toISOString());
    if (added > 0) this.d.wake();
    return added;
  }

  private async facts(e: RoutingEvent): Promise<Facts | null> {
    switch (e.type) {
      case 'task':
      case 'task_started':
      case 'long_running': {
        const task = await this.d.repo.task(e.taskId);
        if (!task) return null;
        return this.taskFacts(task);
      }
      case 'approval': {
        const m = e.message;
        const task = m.taskId ? ((await this.d.repo.task(m.taskId)) ?? null) : null;
        const approvalId = m.approvalId ?? 0;
        return {
          projectId: m.projectId,
          task,
          templateId: task?.template_id ?? (m.templateId || null),
          key: `approval:${approvalId}`,
          subject: `Approval #${approvalId}`.slice(0, 255),
          parts: {
            ...(task ? taskParts(this.d.webHost, task, null) : {}),
            project: { id: m.projectId, name: m.projectName },
            template: m.templateId ? { id: m.templateId, name: m.templateName } : null,
            approval: { id: approvalId, title: m.title, url: m.url },
          },
        };
      }
      case 'runner_offline': {
        const r = e.runner;
        const name = r.project_id === null ? null : await this.d.repo.projectName(r.project_id);
        return {
          projectId: r.project_id,
          task: null,
          templateId: null,
          key: `runner:${r.id}:${r.touched}`,
          subject: `Runner ${r.name}`.slice(0, 255),
          parts: {
            project: r.project_id === null ? null : { id: r.project_id, name: name ?? '' },
            runner: { id: r.id, name: r.name, last_seen: r.touched },
          },
        };
      }
      case 'digest':
        return this.digestFacts(e.projectId, e.now);
    }
  }

  private taskFacts(task: RoutedTask): Facts {
    return {
      projectId: task.project_id,
      task,
      templateId: task.template_id,
      key: `task:${task.id}`,
      subject: `Task #${task.id} of ${task.template_name}`.slice(0, 255),
      parts: taskParts(this.d.webHost, task, null),
    };
  }

  private async digestFacts(projectId: number | null, now: Date): Promise<Facts> {
    const until = now.toISOString();
    const since = new Date(now.getTime() - 24 * 3600_000).toISOString();
    const [counts, failing, name] = await Promise.all([
      this.d.repo.statusCounts(projectId, since, until),
      this.d.repo.failing(projectId, since, until, DIGEST_FAILING_MAX),
      projectId === null ? Promise.resolve(null) : this.d.repo.projectName(projectId),
    ]);
    return {
      projectId,
      task: null,
      templateId: null,
      key: `${until.slice(0, 10)}:p${projectId ?? 'all'}`,
      subject: `Digest of ${until.slice(0, 10)}`,
      parts: {
        project: projectId === null ? null : { id: projectId, name: name ?? '' },
        digest: { since, until, counts, failing },
      },
    };
  }

  private async payload(
    e: RoutingEvent,
    event: NotificationEventName,
    id: string,
    f: Facts,
    now: Date,
  ): Promise<NotificationPayload> {
    const time = now.toISOString();
    const t = f.task;
    if (e.type === 'approval') return payloadOf(id, event, time, approvalMessageOf(e.message), f.parts);
    if (t) {
      const plan = await this.d.planOf(t.id).catch(() => null);
      const minutes = e.type === 'long_running' ? runningMinutes(t, now) : undefined;
      const drift = e.type === 'task' && e.drift ? { workspace: e.drift.workspace, changes: e.drift.summary } : null;
      return payloadOf(id, event, time, taskMessage(this.d.webHost, event, t, { plan, drift, minutes }), {
        ...f.parts,
        plan_summary: plan,
        drift,
        running_minutes: minutes ?? null,
      });
    }
    return payloadOf(id, event, time, this.otherMessage(e, f), f.parts);
  }

  /** Words of the events that are about no task: a runner gone, the daily digest. */
  private otherMessage(e: RoutingEvent, f: Facts): NotificationPayload['message'] {
    const where = f.parts.project ? `[${f.parts.project.name}] ` : '';
    const base = this.d.webHost;
    if (e.type === 'runner_offline') {
      const title = `${where}Runner ${e.runner.name} is offline`;
      const url = e.runner.project_id === null ? `${base}/runners` : `${base}/project/${e.runner.project_id}/runners`;
      return { title, text: `${title}\nLast seen: ${e.runner.touched}\n${url}`, url, color: 'D9534F' };
    }
    const d = f.parts.digest;
    const title = `${where}Daily digest`;
    const counts = Object.entries(d?.counts ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
    const failing = (d?.failing ?? []).map((x) => `- ${x.template_name}: ${x.failed} failed`);
    const url = f.projectId === null ? `${base}/` : `${base}/project/${f.projectId}/history`;
    const lines = [title, `Tasks in the last 24 hours: ${counts || 'none'}`, ...failing, url];
    return { title, text: lines.join('\n'), url, color: '888888' };
  }
}

/** The event a task status (or sweep finding) is, before `task_fixed` is considered. */
function simpleEventName(e: RoutingEvent): NotificationEventName | null {
  switch (e.type) {
    case 'task':
      if (e.drift) return 'drift';
      if (e.status === 'success') return 'task_succeeded';
      if (e.status === 'error') return 'task_failed';
      if (e.status === 'stopped') return 'task_stopped';
      return e.status === 'waiting_confirmation' ? 'approval_needed' : null;
    case 'task_started':
      return 'task_started';
    case 'long_running':
      return 'long_running';
    case 'approval':
      return 'approval_needed';
    case 'runner_offline':
      return 'runner_offline';
    case 'digest':
      return 'digest';
  }
}

/**
 * Per destination, the rules that count for this template and schedule: only those of the most
 * specific level present (a schedule's, else the template's, else the project-wide ones).
 */
export function effectiveRules<R extends RoutedRuleRow>(
  rules: R[],
  templateId: number | null,
  scheduleId: number | null,
): Map<number, R[]> {
  const level = (r: R) => (r.schedule_id !== null ? 2 : r.template_id !== null ? 1 : 0);
  const byDest = new Map<number, R[]>();
  for (const r of rules) {
    if (r.schedule_id !== null && r.schedule_id !== scheduleId) continue;
    if (r.template_id !== null && r.template_id !== templateId) continue;
    const list = byDest.get(r.destination_id) ?? [];
    list.push(r);
    byDest.set(r.destination_id, list);
  }
  for (const [id, list] of byDest) {
    const top = Math.max(...list.map(level));
    byDest.set(
      id,
      list.filter((r) => level(r) === top),
    );
  }
  return byDest;
}

/** A rule's filters against the task (an event about no task passes only filters that need none). */
function passes(r: RoutedRuleRow, task: RoutedTask | null): boolean {
  if (r.only_schedules === 1 && task?.schedule_id == null) return false;
  if (r.branch && task?.branch !== r.branch) return false;
  if (r.exclude_task_runners === 1 && task?.author_role === 'task_runner') return false;
  return true;
}

/** Rule settings that depend on time: a long-running task's minutes, a digest's hour. */
function fits(e: RoutingEvent, r: RoutedRuleRow, task: RoutedTask | null, now: Date): boolean {
  if (e.type === 'digest') return (r.digest_hour ?? DEFAULT_DIGEST_HOUR) === now.getUTCHours();
  if (e.type === 'long_running')
    return runningMinutes(task, now) >= (r.long_running_minutes ?? DEFAULT_LONG_RUNNING_MINUTES);
  return true;
}

function runningMinutes(t: RoutedTask | null, now: Date): number {
  if (!t?.start) return 0;
  return Math.floor((now.getTime() - new Date(t.start).getTime()) / 60_000);
}
