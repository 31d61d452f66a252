import { ErrorCodes } from '@gantry/contracts';
import type { References, scheduleInputSchema, Template } from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type { RepositoriesService } from '../repositories/repositories.service.js';
import type { TemplatesService } from '../templates/templates.service.js';
import { cronErrorCode, cronProblem, cronReason, nextDue } from '../../platform/cron.js';
import type { SchedulesRepository, ScheduleWithTemplate } from './schedules.repository.js';
import { checkStartTarget, type WorkflowLookup } from './workflow-starter.port.js';
import { presentTemplate } from '../templates/templates.presenter.js';
import { scheduleAnswers } from './schedule-answers.js';

type Input = z.output<typeof scheduleInputSchema>;

export class SchedulesService implements ProjectResourceService<ScheduleWithTemplate, Input, Input> {
  constructor(
    private readonly repo: SchedulesRepository,
    private readonly templates: TemplatesService,
    private readonly repositories: RepositoriesService,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly workflows: WorkflowLookup,
  ) {}

  /** A drift check's workspace: one of its template's (terraform-plans checks it; throws a 400 otherwise). */
  driftWorkspace: (projectId: number, template: Template, inventoryId: number) => Promise<number> = () =>
    Promise.reject(new Error('Drift checks are not wired'));

  list(projectId: number, query: Record<string, string | undefined> = {}): Promise<ScheduleWithTemplate[]> {
    const templateId = query.template_id ? Number(query.template_id) : undefined;
    return this.repo.list(projectId, Number.isInteger(templateId) ? templateId : undefined);
  }

  async get(projectId: number, id: number): Promise<ScheduleWithTemplate> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Schedule not found', { code: ErrorCodes.scheduleNotFound });
    return row;
  }

  async create(actor: Actor, projectId: number, input: Input): Promise<ScheduleWithTemplate> {
    const answers = await this.check(projectId, input);
    const row = await this.repo.insert(projectId, this.values(input, answers), this.clock.now().toISOString());
    await this.log(actor, projectId, row.id, `Schedule ${row.name} created`);
    return this.get(projectId, row.id);
  }

  async update(actor: Actor, projectId: number, id: number, input: Input): Promise<void> {
    const before = await this.get(projectId, id);
    const answers = await this.check(projectId, input);
    // A new expression or repository starts counting from now: no catch-up of old due times.
    const reset = before.cron_format !== input.cron_format || before.repository_id !== (input.repository_id ?? null);
    await this.repo.update(projectId, id, {
      ...this.values(input, answers),
      ...(reset ? { active_since: this.clock.now().toISOString(), last_fired: null, last_commit_hash: null } : {}),
    });
    await this.log(actor, projectId, id, `Schedule ${input.name} updated`);
  }

  /** Where the changes its own routes make are recorded (create, update and delete are recorded by resource-routes). */
  audit: AuditRecorder = noAudit;

  async setActive(actor: Actor, projectId: number, id: number, active: boolean): Promise<void> {
    const row = await this.get(projectId, id);
    await this.repo.update(projectId, id, {
      active: +active,
      ...(active && !row.active ? { active_since: this.clock.now().toISOString(), last_fired: null } : {}),
    });
    await this.log(actor, projectId, id, `Schedule ${row.name} ${active ? 'activated' : 'deactivated'}`);
    if (Boolean(row.active) !== active)
      await this.audit.record({
        action: 'update',
        objectType: 'schedule',
        objectId: id,
        projectId,
        before: { active: Boolean(row.active) },
        after: { active },
      });
  }

  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.get(projectId, id);
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Schedule ${row.name} deleted`);
  }

  /**
   * The next `count` due times of an expression after now, in UTC, as the scheduler will fire them;
   * fewer when the expression stops being due (e.g. February 31st never is).
   */
  nextRuns(cronFormat: string, count: number): string[] {
    const reason = cronReason(cronFormat);
    if (reason !== null)
      throw new ValidationError(`Cron: ${reason}`, { code: cronErrorCode(reason), field: 'cron_format' });
    const runs: string[] = [];
    let cursor: Date | null = this.clock.now();
    while (runs.length < count && (cursor = nextDue(cronFormat.trim(), cursor))) runs.push(cursor.toISOString());
    return runs;
  }

  async refs(projectId: number, id: number): Promise<References> {
    await this.get(projectId, id);
    return { templates: [], inventories: [], repositories: [], schedules: [], integrations: [] };
  }

  /** The schedule's answers, checked and typed (null: none given, or a workflow's schedule). */
  private async check(projectId: number, input: Input): Promise<string | null> {
    const problem = cronProblem(input.cron_format);
    if (problem) throw new ValidationError(problem, { code: cronErrorCode(problem), field: 'cron_format' });
    await checkStartTarget({ templates: this.templates, workflows: this.workflows }, projectId, input);
    if (input.repository_id) await this.repositories.assertInProject(projectId, input.repository_id, 'repository_id');
    const text = input.task_params?.environment;
    if (input.type === 'drift_check' && input.template_id !== null) {
      // A drift check plans a Terraform/OpenTofu workspace; any other template has nothing to compare.
      const t = await this.templates.get(projectId, input.template_id);
      if (t.app !== 'terraform' && t.app !== 'tofu')
        throw new ValidationError('A drift check schedule needs a Terraform or OpenTofu template', {
          code: ErrorCodes.driftNotTerraform,
          field: 'type',
        });
      if (input.task_params?.inventory_id)
        await this.driftWorkspace(projectId, presentTemplate(t), input.task_params.inventory_id);
    }
    if (input.template_id === null || text === undefined || !text.trim()) return null;
    const template = presentTemplate(await this.templates.get(projectId, input.template_id));
    return scheduleAnswers(template, text);
  }

  private values(i: Input, answers: string | null) {
    const drift = i.type === 'drift_check';
    // A drift check keeps its `refresh_only` beside the answers (an empty answer object when it has none).
    const workspace = drift && i.task_params?.inventory_id ? { inventory_id: i.task_params.inventory_id } : {};
    const taskParams =
      drift && (i.task_params?.refresh_only !== undefined || workspace.inventory_id)
        ? { environment: answers ?? '{}', refresh_only: i.task_params?.refresh_only ?? false, ...workspace }
        : answers === null
          ? null
          : { environment: answers };
    return {
      name: i.name,
      template_id: i.template_id,
      workflow_id: i.workflow_id,
      cron_format: i.cron_format.trim(),
      repository_id: i.repository_id ?? null,
      active: +i.active,
      type: drift ? 'drift_check' : '',
      task_params: taskParams === null ? null : JSON.stringify(taskParams),
    };
  }

  private log(actor: Actor, projectId: number, id: number, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'schedule', objectId: id, description });
  }
}
