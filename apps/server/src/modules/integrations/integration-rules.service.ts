import { ErrorCodes } from '@gantry/contracts';
import type { extractValueInputSchema, matcherInputSchema } from '@gantry/contracts';
import type { z } from 'zod';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type {
  ExtractValueRow,
  ExtractValueValues,
  IntegrationsRepository,
  IntegrationWithTemplate,
  MatcherRow,
  MatcherValues,
} from './integrations.repository.js';
import type { IntegrationsService } from './integrations.service.js';
import { extractedVariableIssue } from './webhook-read.js';
import { presentExtractValue, presentMatcher } from './integrations.presenter.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';

export type MatcherInput = z.output<typeof matcherInputSchema>;
export type ExtractValueInput = z.output<typeof extractValueInputSchema>;

/**
 * An integration's matchers (which deliveries start its task) and extracted values (what a
 * delivery passes to the task). Every call names the integration, which must be the project's.
 */
export class IntegrationRulesService {
  constructor(
    private readonly repo: IntegrationsRepository,
    private readonly integrations: IntegrationsService,
    private readonly events: EventsService,
  ) {}

  /** Where changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  async matchers(projectId: number, integrationId: number): Promise<MatcherRow[]> {
    await this.integrations.get(projectId, integrationId);
    return this.repo.matchers(projectId, integrationId);
  }

  async getMatcher(projectId: number, integrationId: number, id: number): Promise<MatcherRow> {
    await this.integrations.get(projectId, integrationId);
    const row = await this.repo.findMatcher(projectId, integrationId, id);
    if (!row) throw new NotFoundError('Matcher not found', { code: ErrorCodes.matcherNotFound });
    return row;
  }

  async createMatcher(
    actor: Actor,
    projectId: number,
    integrationId: number,
    input: MatcherInput,
  ): Promise<MatcherRow> {
    const owner = await this.owner(projectId, integrationId, input.integration_id);
    const row = await this.repo.insertMatcher(projectId, integrationId, matcherValues(input));
    await this.log(actor, owner, `Matcher ${row.name} of integration ${owner.name} created`);
    await this.audit.record({ action: 'create', objectType: 'integration_matcher', objectId: row.id, projectId, after: presentMatcher(row) });
    return row;
  }

  async updateMatcher(
    actor: Actor,
    projectId: number,
    integrationId: number,
    id: number,
    input: MatcherInput,
  ): Promise<void> {
    const owner = await this.owner(projectId, integrationId, input.integration_id);
    const before = await this.getMatcher(projectId, integrationId, id);
    await this.repo.updateMatcher(projectId, integrationId, id, matcherValues(input));
    await this.log(actor, owner, `Matcher ${input.name} of integration ${owner.name} updated`);
    const after = await this.getMatcher(projectId, integrationId, id);
    await this.audit.record({ action: 'update', objectType: 'integration_matcher', objectId: id, projectId, before: presentMatcher(before), after: presentMatcher(after) });
  }

  async deleteMatcher(actor: Actor, projectId: number, integrationId: number, id: number): Promise<void> {
    const owner = await this.integrations.get(projectId, integrationId);
    const row = await this.getMatcher(projectId, integrationId, id);
    await this.repo.deletePart('integration_matcher', projectId, integrationId, id);
    await this.log(actor, owner, `Matcher ${row.name} of integration ${owner.name} deleted`);
    await this.audit.record({ action: 'delete', objectType: 'integration_matcher', objectId: id, projectId, before: presentMatcher(row) });
  }

  async values(projectId: number, integrationId: number): Promise<ExtractValueRow[]> {
    await this.integrations.get(projectId, integrationId);
    return this.repo.values(projectId, integrationId);
  }

  async getValue(projectId: number, integrationId: number, id: number): Promise<ExtractValueRow> {
    await this.integrations.get(projectId, integrationId);
    const row = await this.repo.findValue(projectId, integrationId, id);
    if (!row) throw new NotFoundError('Extracted value not found', { code: ErrorCodes.extractedValueNotFound });
    return row;
  }

  async createValue(
    actor: Actor,
    projectId: number,
    integrationId: number,
    input: ExtractValueInput,
  ): Promise<ExtractValueRow> {
    const owner = await this.owner(projectId, integrationId, input.integration_id);
    const row = await this.repo.insertValue(projectId, integrationId, extractValues(input));
    await this.log(actor, owner, `Extracted value ${row.name} of integration ${owner.name} created`);
    await this.audit.record({ action: 'create', objectType: 'integration_value', objectId: row.id, projectId, after: presentExtractValue(row) });
    return row;
  }

  async updateValue(
    actor: Actor,
    projectId: number,
    integrationId: number,
    id: number,
    input: ExtractValueInput,
  ): Promise<void> {
    const owner = await this.owner(projectId, integrationId, input.integration_id);
    const before = await this.getValue(projectId, integrationId, id);
    await this.repo.updateValue(projectId, integrationId, id, extractValues(input));
    await this.log(actor, owner, `Extracted value ${input.name} of integration ${owner.name} updated`);
    const after = await this.getValue(projectId, integrationId, id);
    await this.audit.record({ action: 'update', objectType: 'integration_value', objectId: id, projectId, before: presentExtractValue(before), after: presentExtractValue(after) });
  }

  async deleteValue(actor: Actor, projectId: number, integrationId: number, id: number): Promise<void> {
    const owner = await this.integrations.get(projectId, integrationId);
    const row = await this.getValue(projectId, integrationId, id);
    await this.repo.deletePart('integration_extract_value', projectId, integrationId, id);
    await this.log(actor, owner, `Extracted value ${row.name} of integration ${owner.name} deleted`);
    await this.audit.record({ action: 'delete', objectType: 'integration_value', objectId: id, projectId, before: presentExtractValue(row) });
  }

  /** The integration of the path; a body's integration_id may repeat it but not contradict it. */
  private async owner(
    projectId: number,
    integrationId: number,
    bodyId: number | undefined,
  ): Promise<IntegrationWithTemplate> {
    const owner = await this.integrations.get(projectId, integrationId);
    if (bodyId !== undefined && bodyId !== integrationId)
      throw new ValidationError('Integration id does not match the path', {
        code: ErrorCodes.integrationIdMismatch,
        field: 'integration_id',
      });
    return owner;
  }

  private log(actor: Actor, owner: IntegrationWithTemplate, description: string): Promise<void> {
    return this.events.record({
      projectId: owner.project_id,
      userId: actor.id,
      objectType: 'integration',
      objectId: owner.id,
      description,
    });
  }
}

function matcherValues(i: MatcherInput): MatcherValues {
  return {
    name: i.name,
    match_type: i.match_type,
    body_data_type: i.match_type === 'body' ? (i.body_data_type ?? null) : null,
    key: i.key,
    method: i.method,
    value: i.value,
  };
}

function extractValues(i: ExtractValueInput): ExtractValueValues {
  const problem = extractedVariableIssue(i.variable_type, i.variable);
  if (problem)
    throw new ValidationError(problem.message, { code: problem.code, field: 'variable', variable: i.variable });
  return {
    name: i.name,
    value_source: i.value_source,
    body_data_type: i.value_source === 'body' ? (i.body_data_type ?? null) : null,
    key: i.key,
    variable_type: i.variable_type,
    variable: i.variable,
  };
}
