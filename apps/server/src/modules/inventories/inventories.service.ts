import {
  WORKSPACE_INVENTORY_TYPES,
  cannotDeleteMessage,
  hasReferences,
  type InventoryType,
  type Drift,
  type References,
  type inventoryInputSchema,
  ErrorCodes,
} from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { LOCAL_PATH_NOT_ALLOWED, type LocalPathCheck } from '../../platform/local-paths.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { ReferencesRepository } from '../references/references.repository.js';
import type { RepositoriesService } from '../repositories/repositories.service.js';
import type { InventoriesRepository, InventoryRow } from './inventories.repository.js';

type Input = z.output<typeof inventoryInputSchema>;
/** A workspace inventory carries its drift once the terraform-plans module is wired in. */
export type InventoryWithDrift = InventoryRow & { drift?: Drift };

/** Inventory types usable by each app, for `?app=` filtering of the list. */
const TYPES_BY_APP: Record<string, readonly InventoryType[]> = {
  ansible: ['static', 'static-yaml', 'file', 'url'],
  terraform: ['terraform-workspace'],
  tofu: ['tofu-workspace'],
};

export class InventoriesService implements ProjectResourceService<InventoryRow, Input, Input> {
  constructor(
    private readonly repo: InventoriesRepository,
    private readonly keys: KeysService,
    private readonly repositories: RepositoriesService,
    private readonly refsRepo: ReferencesRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly localPaths: LocalPathCheck,
  ) {}

  /** The last drift checks' findings of workspace inventories (terraform-plans); unset, none is shown. */
  driftOf: ((projectId: number, ids: number[]) => Promise<Map<number, Drift>>) | undefined = undefined;

  async list(projectId: number, query: Record<string, string | undefined>): Promise<InventoryWithDrift[]> {
    const templateId = query.template_id ? Number(query.template_id) : undefined;
    const rows = await this.repo.list(projectId, {
      types: query.app ? (TYPES_BY_APP[query.app] ?? []) : undefined,
      templateId: Number.isInteger(templateId) ? templateId : undefined,
    });
    return this.withDrift(projectId, rows);
  }

  /** Workspace inventories with their drift: one query for the whole list. */
  private async withDrift(projectId: number, rows: InventoryRow[]): Promise<InventoryWithDrift[]> {
    const ids = rows.filter((r) => r.type.endsWith('-workspace')).map((r) => r.id);
    if (!ids.length || !this.driftOf) return rows;
    const drift = await this.driftOf(projectId, ids);
    return rows.map((r) => (drift.has(r.id) ? { ...r, drift: drift.get(r.id) } : r));
  }

  async get(projectId: number, id: number): Promise<InventoryWithDrift> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Inventory not found', { code: ErrorCodes.inventoryNotFound });
    return (await this.withDrift(projectId, [row]))[0]!;
  }

  async create(actor: Actor, projectId: number, input: Input): Promise<InventoryRow> {
    await this.checkLinks(projectId, input);
    const row = await this.repo.insert(projectId, input, this.clock.now().toISOString());
    await this.log(actor, projectId, row.id, `Inventory ${row.name} created`);
    return row;
  }

  async update(actor: Actor, projectId: number, id: number, input: Input): Promise<void> {
    await this.get(projectId, id);
    await this.checkLinks(projectId, input);
    await this.repo.update(projectId, id, input);
    await this.log(actor, projectId, id, `Inventory ${input.name} updated`);
  }

  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.get(projectId, id);
    const refs = await this.refs(projectId, id);
    if (hasReferences(refs)) throw new ConflictError(cannotDeleteMessage('inventory'), { code: ErrorCodes.inventoryInUse, references: refs });
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Inventory ${row.name} deleted`);
  }

  /** Records how a read of a `file` or `url` inventory went (a task run or a listing); never throws. */
  async recordRead(projectId: number, id: number, error: string | null): Promise<void> {
    await this.repo.recordRead(projectId, id, this.clock.now().toISOString(), error?.slice(0, 1000) ?? null).catch(() => undefined);
  }

  /** Attaches a workspace inventory to a template (or detaches it with null); the template checks the rules. */
  async setTemplate(projectId: number, id: number, templateId: number | null): Promise<void> {
    await this.get(projectId, id);
    await this.repo.setTemplate(projectId, id, templateId);
  }

  /** Whether an inventory of this type is a workspace the app can use. */
  isWorkspaceFor(app: string, type: string): boolean {
    return WORKSPACE_INVENTORY_TYPES.includes(type as InventoryType) && (TYPES_BY_APP[app] ?? []).includes(type as InventoryType);
  }

  async refs(projectId: number, id: number): Promise<References> {
    await this.get(projectId, id);
    return this.refsRepo.forInventory(projectId, id);
  }

  /**
   * Keys and repositories must be this project's; become keys are logins with a password; a file
   * outside the repository (an absolute path) only below GANTRY_ALLOWED_LOCAL_PATHS.
   */
  private async checkLinks(projectId: number, input: Input): Promise<void> {
    const problem = input.type === 'file' ? this.localPaths.inventoryProblem(input.inventory) : null;
    if (problem) throw new ValidationError(problem, { code: LOCAL_PATH_NOT_ALLOWED, field: 'inventory' });
    if (input.ssh_key_id !== null) await this.keys.typeInProject(projectId, input.ssh_key_id, 'User credentials', 'ssh_key_id');
    if (input.become_key_id !== null) {
      const type = await this.keys.typeInProject(projectId, input.become_key_id, 'Become key', 'become_key_id');
      if (type !== 'login_password') throw new ValidationError('The become key must be a login with password', { code: ErrorCodes.keyMustBeLoginPassword, label_key: 'become_key', field: 'become_key_id' });
    }
    if (input.repository_id !== null) await this.repositories.assertInProject(projectId, input.repository_id, 'repository_id');
    if (WORKSPACE_INVENTORY_TYPES.includes(input.type) && input.become_key_id !== null) {
      throw new ValidationError('A workspace has no become key', { code: ErrorCodes.workspaceNoBecomeKey, field: 'become_key_id' });
    }
  }

  private log(actor: Actor, projectId: number, id: number, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'inventory', objectId: id, description });
  }
}
