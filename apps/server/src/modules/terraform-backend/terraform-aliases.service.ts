import {
  terraformAliasInputSchema,
  WORKSPACE_INVENTORY_TYPES,
  type InventoryType,
  type TerraformAliasInput,
  type TerraformBackendSettings,
  ErrorCodes,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import type { KeysService } from '../keys/keys.service.js';
import { newAliasId } from './alias-ids.js';
import { aliasHint, auditedAlias } from './terraform-aliases.presenter.js';
import type { AliasRow, TerraformBackendRepository } from './terraform-backend.repository.js';

const ALIAS_NOT_FOUND = 'Alias not found';

/**
 * The aliases of a workspace (backend addresses bound to a login/password key) and the switch
 * that makes the workspace's tasks keep their state in the backend. The key's password is never
 * read here beyond checking that there is one.
 */
export class TerraformAliasesService {
  constructor(
    private readonly repo: TerraformBackendRepository,
    private readonly inventories: InventoriesService,
    private readonly keys: KeysService,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  /**
   * Where alias and backend-switch changes are recorded (the composition root wires the audit
   * trail in). An alias is an address to the raw state: entries name it by its first characters.
   */
  audit: AuditRecorder = noAudit;

  async list(projectId: number, inventoryId: number): Promise<AliasRow[]> {
    await this.workspace(projectId, inventoryId);
    return this.repo.aliases(projectId, inventoryId);
  }

  async get(projectId: number, inventoryId: number, id: string): Promise<AliasRow> {
    await this.workspace(projectId, inventoryId);
    return this.found(await this.repo.findAlias(projectId, inventoryId, id));
  }

  async create(actor: Actor, projectId: number, inventoryId: number, input: TerraformAliasInput): Promise<AliasRow> {
    const ws = await this.workspace(projectId, inventoryId);
    const { auth_key_id } = terraformAliasInputSchema.parse(input);
    await this.checkKey(projectId, auth_key_id);
    const row: AliasRow = {
      id: newAliasId(),
      project_id: projectId,
      inventory_id: inventoryId,
      auth_key_id,
      task_id: null,
      secret: null,
      created: this.clock.now().toISOString(),
    };
    if (!(await this.repo.insertAlias(row))) throw new Error('alias id taken');
    await this.record(actor, projectId, inventoryId, `Terraform backend alias added to workspace ${ws.name}`);
    await this.audit.record({
      action: 'create',
      objectType: 'terraform_alias',
      objectId: aliasHint(row.id),
      projectId,
      after: auditedAlias(row),
    });
    return row;
  }

  async update(
    actor: Actor,
    projectId: number,
    inventoryId: number,
    id: string,
    input: TerraformAliasInput,
  ): Promise<void> {
    const ws = await this.workspace(projectId, inventoryId);
    const { auth_key_id } = terraformAliasInputSchema.parse(input);
    await this.checkKey(projectId, auth_key_id);
    const before = await this.repo.findAlias(projectId, inventoryId, id);
    if (!before || !(await this.repo.setAliasKey(projectId, inventoryId, id, auth_key_id)))
      throw new NotFoundError(ALIAS_NOT_FOUND, { code: ErrorCodes.aliasNotFound });
    await this.record(actor, projectId, inventoryId, `Terraform backend alias of workspace ${ws.name} changed its key`);
    await this.audit.record({
      action: 'update',
      objectType: 'terraform_alias',
      objectId: aliasHint(id),
      projectId,
      before: auditedAlias(before),
      after: auditedAlias({ ...before, auth_key_id }),
    });
  }

  /** A new address for the alias; the old one stops answering at once. */
  async rotate(actor: Actor, projectId: number, inventoryId: number, id: string): Promise<AliasRow> {
    const ws = await this.workspace(projectId, inventoryId);
    const next = newAliasId();
    if (!(await this.repo.renameAlias(projectId, inventoryId, id, next)))
      throw new NotFoundError(ALIAS_NOT_FOUND, { code: ErrorCodes.aliasNotFound });
    await this.record(actor, projectId, inventoryId, `Terraform backend alias of workspace ${ws.name} rotated`);
    const after = this.found(await this.repo.findAlias(projectId, inventoryId, next));
    await this.audit.record({
      action: 'update',
      objectType: 'terraform_alias',
      objectId: aliasHint(id),
      projectId,
      before: { alias: aliasHint(id) },
      after: { alias: aliasHint(next) },
    });
    return after;
  }

  async delete(actor: Actor, projectId: number, inventoryId: number, id: string): Promise<void> {
    const ws = await this.workspace(projectId, inventoryId);
    const before = await this.repo.findAlias(projectId, inventoryId, id);
    if (!before || !(await this.repo.deleteAlias(projectId, inventoryId, id)))
      throw new NotFoundError(ALIAS_NOT_FOUND, { code: ErrorCodes.aliasNotFound });
    await this.record(actor, projectId, inventoryId, `Terraform backend alias removed from workspace ${ws.name}`);
    await this.audit.record({
      action: 'delete',
      objectType: 'terraform_alias',
      objectId: aliasHint(id),
      projectId,
      before: auditedAlias(before),
    });
  }

  async settings(projectId: number, inventoryId: number): Promise<TerraformBackendSettings> {
    await this.workspace(projectId, inventoryId);
    return { enabled: await this.repo.backendEnabled(projectId, inventoryId) };
  }

  async setSettings(
    actor: Actor,
    projectId: number,
    inventoryId: number,
    s: TerraformBackendSettings,
  ): Promise<TerraformBackendSettings> {
    const ws = await this.workspace(projectId, inventoryId);
    const was = await this.repo.backendEnabled(projectId, inventoryId);
    await this.repo.setBackend(projectId, inventoryId, s.enabled, this.clock.now().toISOString());
    if (was !== s.enabled) {
      await this.record(
        actor,
        projectId,
        inventoryId,
        `Workspace ${ws.name} keeps its state ${s.enabled ? "in Gantry's HTTP backend" : 'in its tasks (local backend)'}`,
      );
      await this.audit.record({
        action: 'update',
        objectType: 'terraform_backend',
        objectId: inventoryId,
        projectId,
        before: { enabled: was },
        after: { enabled: s.enabled },
      });
    }
    return { enabled: s.enabled };
  }

  /** The inventory, which must be a Terraform/OpenTofu workspace of the project. */
  private async workspace(projectId: number, inventoryId: number) {
    const inv = await this.inventories.get(projectId, inventoryId);
    if (!WORKSPACE_INVENTORY_TYPES.includes(inv.type as InventoryType)) {
      throw new ValidationError('Only Terraform/OpenTofu workspaces have a state backend', {
        code: ErrorCodes.terraformWorkspaceRequired,
      });
    }
    return inv;
  }

  /** A login/password key of the project with both a login and a password (terraform sends both). */
  private async checkKey(projectId: number, keyId: number): Promise<void> {
    const field = 'auth_key_id';
    const type = await this.keys.typeInProject(projectId, keyId, 'Auth key', field);
    if (type !== 'login_password')
      throw new ValidationError('The auth key must be a login/password key', {
        code: ErrorCodes.keyMustBeLoginPassword,
        label_key: 'auth_key',
        field,
      });
    const secret = await this.keys.secretOf(projectId, keyId);
    if (secret?.type !== 'login_password' || !secret.login || !secret.password) {
      throw new ValidationError('The auth key needs a login and a password', {
        code: ErrorCodes.authKeyIncomplete,
        field,
      });
    }
  }

  private found(row: AliasRow | undefined): AliasRow {
    if (!row) throw new NotFoundError(ALIAS_NOT_FOUND, { code: ErrorCodes.aliasNotFound });
    return row;
  }

  private record(actor: Actor, projectId: number, inventoryId: number, description: string): Promise<void> {
    return this.events.record({
      projectId,
      userId: actor.id,
      objectType: 'inventory',
      objectId: inventoryId,
      description,
    });
  }
}
