import { ErrorCodes } from '@gantry/contracts';
import type { runnerInputSchema } from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256 } from '../../platform/crypto.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type { RunnerRow, RunnersRepository } from './runners.repository.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import { presentRunner } from './runners.presenter.js';

export type RunnerInputValues = z.output<typeof runnerInputSchema>;

/** Global runners (admin, `null`) or one project's runners. */
export type RunnerScope = { projectId: number | null };

/** Key pairs come through an adapter: generating RSA keys is slow, and tests may want a fixed one. */
export type KeyPairFactory = () => Promise<{ publicKey: string; privateKey: string }>;

const TOKEN_LENGTH = 48;

/**
 * Runner registrations. The token and the private key exist only in the creation answer: the
 * token is stored as its sha256, the private key not at all (the server keeps the public half
 * to seal job packages to the runner).
 */
export class RunnersService {
  constructor(
    private readonly repo: RunnersRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly keyPair: KeyPairFactory,
  ) {}

  /** Where changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  /** The admin sees every runner; a project sees its own. */
  list(scope: RunnerScope | 'all'): Promise<RunnerRow[]> {
    return this.repo.list(scope === 'all' ? undefined : scope.projectId);
  }

  /** A runner in the scope (the admin scope 'all' reaches any runner). */
  async get(scope: RunnerScope | 'all', id: number): Promise<RunnerRow> {
    const row = await this.repo.find(id);
    if (!row || (scope !== 'all' && row.project_id !== scope.projectId)) throw new NotFoundError('Runner not found', { code: ErrorCodes.runnerNotFound });
    return row;
  }

  async create(actor: Actor, scope: RunnerScope, input: RunnerInputValues): Promise<{ row: RunnerRow; token: string; privateKey: string }> {
    this.check(scope.projectId, input);
    const token = randomToken(TOKEN_LENGTH);
    const { publicKey, privateKey } = await this.keyPair();
    const row = await this.repo.insert({
      project_id: scope.projectId,
      name: input.name,
      tag: input.tag,
      webhook: input.webhook,
      max_parallel_tasks: input.max_parallel_tasks,
      active: input.active ? 1 : 0,
      token_hash: sha256(token),
      public_key: publicKey,
      touched: null,
      cleaning_requested: 0,
      created: this.clock.now().toISOString(),
    });
    await this.log(actor, row, `Runner ${row.name} created`);
    // The token and private key are new secrets: "changed", never their values.
    await this.audit.record({ action: 'create', objectType: 'runner', objectId: row.id, projectId: row.project_id, after: presentRunner(row), secretsChanged: ['token', 'private_key'] });
    return { row, token, privateKey };
  }

  async update(actor: Actor, scope: RunnerScope | 'all', id: number, input: RunnerInputValues): Promise<RunnerRow> {
    const row = await this.get(scope, id);
    this.check(row.project_id, input);
    await this.repo.update(id, { name: input.name, tag: input.tag, webhook: input.webhook, max_parallel_tasks: input.max_parallel_tasks, active: input.active ? 1 : 0 });
    await this.log(actor, row, `Runner ${input.name} updated`);
    const after = (await this.repo.find(id))!;
    await this.audit.record({ action: 'update', objectType: 'runner', objectId: id, projectId: row.project_id, before: presentRunner(row), after: presentRunner(after) });
    return after;
  }

  async setActive(actor: Actor, scope: RunnerScope | 'all', id: number, active: boolean): Promise<void> {
    const row = await this.get(scope, id);
    await this.repo.update(id, { active: active ? 1 : 0 });
    await this.log(actor, row, `Runner ${row.name} ${active ? 'activated' : 'deactivated'}`);
    await this.audit.record({ action: 'update', objectType: 'runner', objectId: id, projectId: row.project_id, before: { active: row.active === 1 }, after: { active } });
  }

  /** Asks the runner to empty its work folder at its next poll. */
  async clearCache(actor: Actor, scope: RunnerScope | 'all', id: number): Promise<void> {
    const row = await this.get(scope, id);
    await this.repo.update(id, { cleaning_requested: 1 });
    await this.log(actor, row, `Runner ${row.name}: cache clearing requested`);
    // As a project's cache clearing: a delete of the runner's cache (emptied at its next poll),
    // noting whether a request was already waiting.
    await this.audit.record({
      action: 'delete',
      objectType: 'runner_cache',
      objectId: id,
      projectId: row.project_id,
      before: { runner: row.name, cleaning_requested: row.cleaning_requested === 1 },
    });
  }

  /** Deleting a runner that still runs tasks lets the heartbeat check fail them. */
  async delete(actor: Actor, scope: RunnerScope | 'all', id: number): Promise<void> {
    const row = await this.get(scope, id);
    await this.repo.delete(id);
    await this.log(actor, row, `Runner ${row.name} deleted`);
    await this.audit.record({ action: 'delete', objectType: 'runner', objectId: id, projectId: row.project_id, before: presentRunner(row) });
  }

  /** The runner a bearer token stands for, or null. */
  async authenticate(token: string): Promise<RunnerRow | null> {
    return (await this.repo.findByTokenHash(sha256(token))) ?? null;
  }

  private check(projectId: number | null, input: RunnerInputValues): void {
    // A project runner without a tag would take every untagged task of the project.
    if (projectId !== null && !input.tag) throw new ValidationError('Tag is required', { code: ErrorCodes.fieldRequired, label_key: 'tag', field: 'tag' });
  }

  private log(actor: Actor, row: RunnerRow, description: string): Promise<void> {
    return this.events.record({ projectId: row.project_id, userId: actor.id, objectType: 'runner', objectId: row.id, description });
  }
}
