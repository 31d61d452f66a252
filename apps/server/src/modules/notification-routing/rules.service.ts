import { ErrorCodes, type NotificationRule, type notificationRuleInputSchema } from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import type { DestinationsService } from './destinations.service.js';
import { presentRule } from './notification-routing.presenter.js';
import type { RuleRow, RulesRepository, RuleValues } from './rules.repository.js';

export type RuleInput = z.output<typeof notificationRuleInputSchema>;

/** Defaults a rule gets when it routes these events without saying more. */
const LONG_RUNNING_DEFAULT_MINUTES = 30;
const DIGEST_DEFAULT_HOUR = 8;

/**
 * Notification rules of a project, or global ones (`projectId` null). A project rule names only
 * the project's destinations, templates and schedules; a global rule only global destinations
 * and no template or schedule.
 */
export class RulesService {
  /** Where changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  constructor(
    private readonly repo: RulesRepository,
    private readonly destinations: Pick<DestinationsService, 'exists'>,
    private readonly events: Pick<EventsService, 'record'>,
    private readonly clock: Clock,
  ) {}

  async list(projectId: number | null, templateId?: number): Promise<NotificationRule[]> {
    return (await this.repo.list(projectId, templateId)).map(presentRule);
  }

  async get(projectId: number | null, id: number): Promise<NotificationRule> {
    return presentRule(await this.row(projectId, id));
  }

  async create(actor: Actor, projectId: number | null, input: RuleInput): Promise<NotificationRule> {
    const values = await this.values(projectId, input);
    const row = await this.repo.insert(projectId, values, this.clock.now().toISOString());
    const created = presentRule(row);
    await this.log(actor, projectId, row.id, `Notification rule ${row.id} created`);
    await this.audit.record({
      action: 'create',
      objectType: 'notification_rule',
      objectId: row.id,
      projectId,
      after: created,
    });
    return created;
  }

  async update(actor: Actor, projectId: number | null, id: number, input: RuleInput): Promise<void> {
    const before = await this.row(projectId, id);
    await this.repo.update(projectId, id, await this.values(projectId, input));
    await this.log(actor, projectId, id, `Notification rule ${id} updated`);
    await this.audit.record({
      action: 'update',
      objectType: 'notification_rule',
      objectId: id,
      projectId,
      before: presentRule(before),
      after: presentRule(await this.row(projectId, id)),
    });
  }

  async delete(actor: Actor, projectId: number | null, id: number): Promise<void> {
    const before = await this.row(projectId, id);
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Notification rule ${id} deleted`);
    await this.audit.record({
      action: 'delete',
      objectType: 'notification_rule',
      objectId: id,
      projectId,
      before: presentRule(before),
    });
  }

  private async row(projectId: number | null, id: number): Promise<RuleRow> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Notification rule not found', { code: ErrorCodes.notificationRuleNotFound });
    return row;
  }

  /** Checks what the rule names belongs to its scope; a schedule brings its template. */
  private async values(projectId: number | null, input: RuleInput): Promise<RuleValues> {
    if (!(await this.destinations.exists(projectId, input.destination_id)))
      throw scope('destination_id', 'The destination is not one this rule can use');
    let templateId = input.template_id ?? null;
    const scheduleId = input.schedule_id ?? null;
    if (projectId === null) {
      if (templateId !== null) throw scope('template_id', 'A global rule cannot name a template');
      if (scheduleId !== null) throw scope('schedule_id', 'A global rule cannot name a schedule');
    } else {
      if (templateId !== null && !(await this.repo.template(projectId, templateId)))
        throw scope('template_id', 'The template is not one of this project');
      if (scheduleId !== null) {
        const schedule = await this.repo.schedule(projectId, scheduleId);
        if (!schedule || schedule.template_id === null)
          throw scope('schedule_id', "The schedule is not one of this project's template schedules");
        if (templateId !== null && templateId !== schedule.template_id)
          throw scope('template_id', "The template is not the schedule's");
        templateId = schedule.template_id;
      }
    }
    const events = [...new Set(input.events)];
    return {
      destination_id: input.destination_id,
      events: JSON.stringify(events),
      template_id: templateId,
      schedule_id: scheduleId,
      only_schedules: input.only_schedules ? 1 : 0,
      branch: input.branch?.trim() || null,
      exclude_task_runners: input.exclude_task_runners ? 1 : 0,
      long_running_minutes:
        input.long_running_minutes ?? (events.includes('long_running') ? LONG_RUNNING_DEFAULT_MINUTES : null),
      digest_hour: input.digest_hour ?? (events.includes('digest') ? DIGEST_DEFAULT_HOUR : null),
    };
  }

  private async log(actor: Actor, projectId: number | null, id: number, description: string): Promise<void> {
    await this.events.record({
      projectId,
      userId: actor.id,
      objectType: 'notification_rule',
      objectId: id,
      description,
    });
  }
}

function scope(field: string, message: string): ValidationError {
  return new ValidationError(message, { code: ErrorCodes.notificationRuleScope, field });
}
