import { cannotDeleteMessage, hasReferences, type References, type environmentInputSchema, ErrorCodes } from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type { ReferencesRepository } from '../references/references.repository.js';
import type { EnvironmentsRepository, EnvironmentWithSecrets } from './environments.repository.js';

type Input = z.output<typeof environmentInputSchema>;

/** Variable groups: extra variables, environment variables and write-only secrets. */
export class EnvironmentsService implements ProjectResourceService<EnvironmentWithSecrets, Input, Input> {
  constructor(
    private readonly repo: EnvironmentsRepository,
    private readonly refsRepo: ReferencesRepository,
    private readonly box: SecretBox,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  list(projectId: number): Promise<EnvironmentWithSecrets[]> {
    return this.repo.list(projectId);
  }

  async get(projectId: number, id: number): Promise<EnvironmentWithSecrets> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Variable group not found', { code: ErrorCodes.variableGroupNotFound });
    return row;
  }

  async create(actor: Actor, projectId: number, input: Input): Promise<EnvironmentWithSecrets> {
    const row = await this.repo.insert(projectId, { name: input.name, json: input.json, env: input.env }, this.clock.now().toISOString());
    for (const s of input.secrets) {
      if (s.operation === 'delete') continue;
      await this.repo.insertSecret(projectId, row.id, { name: s.name, type: s.type, secret: this.box.seal(s.secret) });
    }
    await this.log(actor, projectId, row.id, `Variable group ${row.name} created`);
    return this.get(projectId, row.id);
  }

  /**
   * Applies secret changes: entries without id (or with operation create) are created, `update`
   * rewrites name and type (and the value when one is given), `delete` removes.
   */
  async update(actor: Actor, projectId: number, id: number, input: Input): Promise<void> {
    await this.get(projectId, id);
    await this.repo.update(projectId, id, { name: input.name, json: input.json, env: input.env });
    for (const [i, s] of input.secrets.entries()) {
      if (s.id === undefined || s.operation === 'create') {
        if (s.operation === 'delete') continue;
        await this.repo.insertSecret(projectId, id, { name: s.name, type: s.type, secret: this.box.seal(s.secret) });
      } else if (s.operation === 'delete') {
        await this.repo.deleteSecret(projectId, id, s.id);
      } else if (s.operation === 'update') {
        const changed = await this.repo.updateSecret(projectId, id, s.id, {
          name: s.name,
          type: s.type,
          ...(s.secret ? { secret: this.box.seal(s.secret) } : {}),
        });
        if (changed === 0) throw new ValidationError('Secret not found in this variable group', { code: ErrorCodes.secretNotInGroup, field: `secrets.${i}.id` });
      }
    }
    await this.log(actor, projectId, id, `Variable group ${input.name} updated`);
  }

  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.get(projectId, id);
    const refs = await this.refs(projectId, id);
    if (hasReferences(refs)) throw new ConflictError(cannotDeleteMessage('variable group'), { code: ErrorCodes.variableGroupInUse, references: refs });
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Variable group ${row.name} deleted`);
  }

  async refs(projectId: number, id: number): Promise<References> {
    await this.get(projectId, id);
    return this.refsRepo.forEnvironment(projectId, id);
  }

  /** Names of the group's environment variables, secret ones included: task input may replace none of them. */
  async envNames(projectId: number, id: number): Promise<string[]> {
    const row = await this.get(projectId, id);
    let env: unknown = {};
    try {
      env = JSON.parse(row.env || '{}');
    } catch {
      // Stored groups were checked on save; an unreadable one has no names to protect.
    }
    const names = env && typeof env === 'object' && !Array.isArray(env) ? Object.keys(env) : [];
    return [...names, ...row.secrets.filter((s) => s.type === 'env').map((s) => s.name)];
  }

  /** Decrypted secrets, for the task engine only. */
  async secretValues(projectId: number, id: number): Promise<Array<{ name: string; type: string; value: string }>> {
    const rows = await this.repo.sealedSecrets(projectId, id);
    return rows.map((r) => ({ name: r.name, type: r.type, value: this.box.open(r.secret) }));
  }

  private log(actor: Actor, projectId: number, id: number, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'environment', objectId: id, description });
  }
}
