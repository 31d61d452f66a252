import type { PlanSummary } from '@gantry/contracts';
import type { EventsService } from '../events/events.service.js';
import type { Audience, ChannelName, NotificationChannel } from './channels/channel.js';
import {
  buildMessage,
  notificationEventFor,
  type NotificationEvent,
  type NotificationMessage,
} from './notification-message.js';
import type { NotificationsRepository, TaskNotificationContext } from './notifications.repository.js';

/** The facts of a task a notification needs; `status` is the one to notify about. */
export interface NotifiableTask {
  id: number;
  status: string;
  /** A drift check's finding: sent as a `drift` notification whatever the task's status. */
  drift?: { workspace: string | null; summary: PlanSummary | null };
}

export type DeliveryResult = 'sent' | 'skipped' | 'failed';

/** What the notification routing hears: a task event (final, waiting, drift) or an approval waiting. */
export type RoutableEvent = { type: 'task'; task: NotifiableTask } | { type: 'approval'; message: NotificationMessage };

/** What became of one task event: skipped as a whole (and why), or each channel's result. */
export interface NotifyOutcome {
  taskId: number;
  status: string;
  event: NotificationEvent | null;
  skipped: 'no channel' | 'status' | 'task gone' | 'project alert off' | 'success suppressed' | null;
  channels: Partial<Record<ChannelName, DeliveryResult>>;
}

/**
 * Decides whether a task event is worth telling and tells every configured channel. Email goes to
 * each project member whose alert is on; chat and webhooks get one message per event. A failed
 * delivery never reaches the task: it becomes an activity event with every secret masked.
 */
export class NotificationsService {
  private readonly listeners = new Set<(o: NotifyOutcome) => void>();

  constructor(
    private readonly repo: Pick<NotificationsRepository, 'context' | 'alertEmails'>,
    private readonly channels: NotificationChannel[],
    private readonly events: Pick<EventsService, 'record'>,
    /** Public URL of the console (links); empty for relative links. */
    private readonly webHost: string,
    /** Configured secrets, masked out of any error text. */
    private readonly secrets: string[],
  ) {}

  /**
   * Every event also reaches this port (the project's notification routing), whatever instance
   * channels are configured; it must not throw nor wait (it queues deliveries in the background).
   */
  onEvent: (e: RoutableEvent) => void = () => undefined;

  /** Fire and forget: the task pipeline goes on at once; listeners hear the outcome. */
  dispatch(task: NotifiableTask): void {
    this.route({ type: 'task', task });
    void this.notify(task)
      .then((o) => {
        for (const l of this.listeners) l(o);
      })
      .catch(() => undefined);
  }

  /** A task's plan summary (terraform-plans): a waiting-for-confirmation message carries its counts. */
  planOf: (taskId: number) => Promise<PlanSummary | null> = async () => null;

  /** A drift check found drift worth telling (terraform-plans decides when): fire and forget. */
  driftFound(taskId: number, workspace: string | null, summary: PlanSummary | null): void {
    this.dispatch({ id: taskId, status: 'drifted', drift: { workspace, summary } });
  }

  /** Hears the outcome of every dispatched notification (tests wait on it). */
  onSettled(fn: (o: NotifyOutcome) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Notifies about the task's status when it should; resolves once every channel is done. */
  async notify(task: NotifiableTask): Promise<NotifyOutcome> {
    const event = task.drift ? 'drift' : notificationEventFor(task.status);
    const outcome: NotifyOutcome = { taskId: task.id, status: task.status, event, skipped: null, channels: {} };
    if (this.channels.length === 0) return { ...outcome, skipped: 'no channel' };
    if (!event) return { ...outcome, skipped: 'status' };
    const ctx = await this.repo.context(task.id);
    if (!ctx) return { ...outcome, skipped: 'task gone' };
    if (ctx.project_alert !== 1) return { ...outcome, skipped: 'project alert off' };
    if (!task.drift && task.status === 'success' && ctx.suppress_success_alerts === 1)
      return { ...outcome, skipped: 'success suppressed' };
    const plan = event === 'task_waiting_confirmation' ? await this.planOf(task.id).catch(() => null) : null;

    const message = buildMessage({
      projectId: ctx.project_id,
      projectName: ctx.project_name,
      templateId: ctx.template_id,
      templateName: ctx.template_name,
      taskId: task.id,
      status: task.status,
      author: authorOf(ctx),
      webHost: this.webHost,
      plan,
      drift: task.drift ? { workspace: task.drift.workspace, changes: task.drift.summary } : null,
    });
    const audience: Audience = {
      emails: this.channels.some((c) => c.name === 'email') ? await this.repo.alertEmails(ctx.project_id) : [],
      chat: ctx.alert_chat,
    };
    await Promise.all(
      this.channels.map(async (c) => {
        try {
          outcome.channels[c.name] = (await c.send(message, audience)) ? 'sent' : 'skipped';
        } catch (e) {
          outcome.channels[c.name] = 'failed';
          await this.events
            .record({
              projectId: ctx.project_id,
              userId: null,
              objectType: 'task',
              objectId: task.id,
              description: `Notification via ${c.name} failed: ${this.mask(String((e as Error)?.message ?? e))}`,
            })
            .catch(() => undefined);
        }
      }),
    );
    return outcome;
  }

  /**
   * Tells approvers an approval waits for them: each one's email carries their own signed one-time
   * link; chat and webhooks get one message with the plain link to the console (a shared channel
   * is no place for personal links), and only when the project takes alerts. Failures become
   * activity events as task notifications do; nothing is thrown.
   */
  async approvalRequested(a: {
    projectAlert: boolean;
    alertChat: string | null;
    shared: NotificationMessage;
    personal: Array<{ email: string; message: NotificationMessage }>;
  }): Promise<Partial<Record<ChannelName, DeliveryResult>>> {
    const event: RoutableEvent = { type: 'approval', message: a.shared };
    this.route(event);
    const results: Partial<Record<ChannelName, DeliveryResult>> = {};
    const fail = async (c: NotificationChannel, e: unknown) => {
      results[c.name] = 'failed';
      await this.events
        .record({
          projectId: a.shared.projectId,
          userId: null,
          objectType: 'approval',
          objectId: a.shared.approvalId ?? null,
          description: `Notification via ${c.name} failed: ${this.mask(String((e as Error)?.message ?? e))}`,
        })
        .catch(() => undefined);
    };
    for (const c of this.channels) {
      try {
        if (c.name === 'email') {
          let sent = false;
          for (const p of a.personal) sent = (await c.send(p.message, { emails: [p.email], chat: null })) || sent;
          results.email = sent ? 'sent' : 'skipped';
        } else if (a.projectAlert) {
          results[c.name] = (await c.send(a.shared, { emails: [], chat: a.alertChat })) ? 'sent' : 'skipped';
        } else results[c.name] = 'skipped';
      } catch (e) {
        await fail(c, e);
      }
    }
    return results;
  }

  private route(e: RoutableEvent): void {
    try {
      this.onEvent(e);
    } catch {
      // The routing queues in the background; nothing of it may reach the task or the approval.
    }
  }

  private mask(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    return out.slice(0, 500);
  }
}

function authorOf(ctx: TaskNotificationContext): string | null {
  if (ctx.user_name) return ctx.user_name;
  if (ctx.schedule_id !== null) return 'a schedule';
  if (ctx.integration_id !== null) return 'an integration';
  return null;
}
