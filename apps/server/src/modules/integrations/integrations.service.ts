import {
  AUTH_METHODS_WITH_HEADER,
  type IntegrationTaskParams,
  type References,
  type integrationInputSchema,
  ErrorCodes,
} from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { TemplatesService } from '../templates/templates.service.js';
import type { AliasRow, IntegrationsRepository, IntegrationWithTemplate } from './integrations.repository.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import { secretsIn } from '../audit/audit-fields.js';
import { presentIntegration } from './integrations.presenter.js';
import { checkStartTarget, type WorkflowLookup } from '../schedules/workflow-starter.port.js';
import { scheduleAnswers } from '../schedules/schedule-answers.js';
import { presentTemplate } from '../templates/templates.presenter.js';

export type IntegrationInput = z.output<typeof integrationInputSchema>;

/**
 * Integrations (incoming webhooks) and their aliases. Changes need updateProject (spec 02 §6);
 * the template and the secret key must be this project's, and the secret a login with password
 * key (its password is the shared secret; basic auth checks its login too).
 */
export class IntegrationsService implements ProjectResourceService<
  IntegrationWithTemplate,
  IntegrationInput,
  IntegrationInput
> {
  constructor(
    private readonly repo: IntegrationsRepository,
    private readonly templates: TemplatesService,
    private readonly keys: KeysService,
    private readonly events: EventsService,
    private readonly clock: Clock,
    /** Random alias text (URL-safe); an adapter so tests can pin it. */
    private readonly newAlias: () => string,
    private readonly workflows: WorkflowLookup,
  ) {}

  list(projectId: number): Promise<IntegrationWithTemplate[]> {
    return this.repo.list(projectId);
  }

  /** Where changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  async get(projectId: number, id: number): Promise<IntegrationWithTemplate> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Integration not found', { code: ErrorCodes.integrationNotFound });
    return row;
  }

  async create(actor: Actor, projectId: number, input: IntegrationInput): Promise<IntegrationWithTemplate> {
    const values = await this.values(projectId, input);
    const row = await this.repo.insert(projectId, values, this.clock.now().toISOString());
    await this.log(actor, projectId, row.id, `Integration ${row.name} created`);
    const created = await this.get(projectId, row.id);
    await this.audit.record({
      action: 'create',
      objectType: 'integration',
      objectId: row.id,
      projectId,
      after: presentIntegration(created),
      secretsChanged: secretsIn(input),
    });
    return created;
  }

  async update(actor: Actor, projectId: number, id: number, input: IntegrationInput): Promise<void> {
    const before = await this.get(projectId, id);
    await this.repo.update(projectId, id, await this.values(projectId, input));
    await this.log(actor, projectId, id, `Integration ${input.name} updated`);
    const after = await this.get(projectId, id);
    await this.audit.record({
      action: 'update',
      objectType: 'integration',
      objectId: id,
      projectId,
      before: presentIntegration(before),
      after: presentIntegration(after),
      secretsChanged: secretsIn(input),
    });
  }

  /** Its aliases, matchers and extracted values go with it; tasks it started stay. */
  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.get(projectId, id);
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Integration ${row.name} deleted`);
    await this.audit.record({
      action: 'delete',
      objectType: 'integration',
      objectId: id,
      projectId,
      before: presentIntegration(row),
    });
  }

  /** Nothing points at an integration. */
  async refs(projectId: number, id: number): Promise<References> {
    await this.get(projectId, id);
    return { templates: [], inventories: [], repositories: [], schedules: [], integrations: [] };
  }

  /** Aliases of an integration, or the project-level ones when `integrationId` is null. */
  async aliases(projectId: number, integrationId: number | null): Promise<AliasRow[]> {
    if (integrationId !== null) await this.get(projectId, integrationId);
    return this.repo.aliases(projectId, integrationId);
  }

  async createAlias(actor: Actor, projectId: number, integrationId: number | null): Promise<AliasRow> {
    const owner = integrationId === null ? null : await this.get(projectId, integrationId);
    const row = await this.repo.insertAlias(projectId, integrationId, this.newAlias(), this.clock.now().toISOString());
    await this.log(
      actor,
      projectId,
      integrationId,
      owner ? `Alias created for integration ${owner.name}` : 'Project integration alias created',
    );
    await this.audit.record({
      action: 'create',
      objectType: 'integration_alias',
      objectId: row.id,
      projectId,
      after: auditedAlias(row),
      secretsChanged: ['alias'],
    });
    return row;
  }

  async deleteAlias(actor: Actor, projectId: number, integrationId: number | null, aliasId: number): Promise<void> {
    const owner = integrationId === null ? null : await this.get(projectId, integrationId);
    const alias = await this.repo.findAlias(projectId, integrationId, aliasId);
    if (!alias) throw new NotFoundError('Alias not found', { code: ErrorCodes.aliasNotFound });
    await this.repo.deleteAlias(projectId, aliasId);
    await this.log(
      actor,
      projectId,
      integrationId,
      owner ? `Alias deleted from integration ${owner.name}` : 'Project integration alias deleted',
    );
    await this.audit.record({
      action: 'delete',
      objectType: 'integration_alias',
      objectId: aliasId,
      projectId,
      before: auditedAlias(alias),
    });
  }

  private async values(projectId: number, input: IntegrationInput) {
    await checkStartTarget({ templates: this.templates, workflows: this.workflows }, projectId, input);
    const secretId = input.auth_method === 'none' ? null : (input.auth_secret_id ?? null);
    if (secretId !== null) {
      const type = await this.keys.typeInProject(projectId, secretId, 'Secret', 'auth_secret_id');
      if (type !== 'login_password')
        throw new ValidationError('The secret must be a login with password key', {
          code: ErrorCodes.keyMustBeLoginPassword,
          label_key: 'secret',
          field: 'auth_secret_id',
        });
    }
    return {
      name: input.name,
      template_id: input.template_id,
      workflow_id: input.workflow_id,
      auth_method: input.auth_method,
      auth_header: AUTH_METHODS_WITH_HEADER.includes(input.auth_method) ? (input.auth_header ?? null) : null,
      auth_secret_id: secretId,
      searchable: +input.searchable,
      task_params: JSON.stringify(await this.typedAnswers(projectId, withoutBlankVars(input.task_params), input.template_id)),
    };
  }

  /**
   * The integration's extra variables checked against its template's parameters as its tasks will
   * be (a delivery's values may complete them, so none is required here), and stored typed.
   */
  private async typedAnswers(projectId: number, p: IntegrationTaskParams, templateId: number | null) {
    if (templateId === null || p.environment === undefined) return p;
    const template = presentTemplate(await this.templates.get(projectId, templateId));
    return { ...p, environment: await scheduleAnswers(template, p.environment, { partial: true, anyName: true }) };
  }

  private log(actor: Actor, projectId: number, id: number | null, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'integration', objectId: id, description });
  }
}

/**
 * An alias as its audit entries show it: which integration (null: the project's) it opens, not
 * its text. The alias is the whole address of the webhook, enough to call an integration that
 * checks nothing else, so the trail (and what it is exported to) keeps only that it was set.
 */
function auditedAlias(r: AliasRow): Record<string, unknown> {
  return { id: r.id, integration_id: r.integration_id };
}

/** Blank extra variables mean none (the contract has checked that others are a JSON object). */
function withoutBlankVars(p: IntegrationTaskParams): IntegrationTaskParams {
  return p.environment?.trim() ? p : { ...p, environment: undefined };
}
