import {
  summarizeState,
  type StateDiff,
  type TerraformState,
  type TerraformStateVersion,
  ErrorCodes,
} from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { NotFoundError } from '../../platform/errors.js';
import type { Actor } from '../../platform/resource-routes.js';
import { noAudit, type AuditRecord, type AuditRecorder } from '../audit/audit.port.js';
import type { EventsService } from '../events/events.service.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import { presentListedVersion, presentState, presentStateVersion } from './terraform-states.presenter.js';
import type { TerraformStateRow, TerraformStatesRepository } from './terraform-states.repository.js';
import { redactState } from './state-redaction.js';
import { diffStates } from './state-diff.js';

const NO_STATE = 'No state available.';
const NO_VERSION = 'State version not found';

/** Who wrote a version through the HTTP backend: a running task, or someone holding an alias. */
export type StateWriter = { taskId: number; alias: null } | { taskId: null; alias: string };

/** State versions of Terraform/OpenTofu workspace inventories: stored sealed, shown redacted. */
export class TerraformStatesService {
  constructor(
    private readonly repo: TerraformStatesRepository,
    private readonly inventories: InventoriesService,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly events?: EventsService,
  ) {}

  /**
   * Where new versions and deletions are recorded: the version's summary, never its text (a
   * state holds every secret the configuration handles). The object is the workspace's state.
   */
  audit: AuditRecorder = noAudit;

  /** Stores the state a task left in a workspace; `status` is the task's final status. */
  async record(v: {
    projectId: number;
    inventoryId: number;
    taskId: number;
    status: string;
    state: string;
  }): Promise<void> {
    const summary = summarizeState(v.state);
    const values = {
      project_id: v.projectId,
      inventory_id: v.inventoryId,
      task_id: v.taskId,
      status: v.status,
      state: this.box.seal(v.state),
      created: this.clock.now().toISOString(),
      serial: summary?.serial ?? null,
      lineage: summary?.lineage ?? null,
      resource_count: summary?.addresses.length ?? null,
      writer_alias: null,
    };
    const id = await this.repo.insert(values);
    // Stored when the run ends, by Gantry, not by whoever started the task.
    await this.recordVersion({ id, ...values }, { authKind: 'system', actorId: null, actorLogin: null });
  }

  /**
   * Stores a state POSTed to the HTTP backend (already checked to be a state). A state equal to
   * the newest version adds none: terraform may send the same state again.
   */
  async recordBackend(projectId: number, inventoryId: number, writer: StateWriter, state: string): Promise<void> {
    const summary = summarizeState(state);
    if ((await this.latestState(projectId, inventoryId)) === state) return;
    const values = {
      project_id: projectId,
      inventory_id: inventoryId,
      task_id: writer.taskId,
      // A task's version takes the task's status when listed (it has none yet).
      status: '',
      state: this.box.seal(state),
      created: this.clock.now().toISOString(),
      serial: summary?.serial ?? null,
      lineage: summary?.lineage ?? null,
      resource_count: summary?.addresses.length ?? null,
      writer_alias: writer.alias,
    };
    const id = await this.repo.insert(values);
    await this.recordVersion({ id, ...values });
  }

  /** A new version's entry: what the versions list shows of it (the alias as a hint), not its text. */
  private async recordVersion(row: TerraformStateRow, caller?: AuditRecord['caller']): Promise<void> {
    const v = presentStateVersion(row);
    await this.audit.record({
      action: 'create',
      objectType: 'terraform_state',
      objectId: row.inventory_id,
      projectId: row.project_id,
      after: {
        version_id: v.id,
        task_id: v.task_id,
        serial: v.serial,
        lineage: v.lineage,
        resource_count: v.resource_count,
        alias: v.alias_hint,
      },
      caller,
    });
  }

  /** The newest version's full text (for the backend's GET), or null when there is none. */
  async latestState(projectId: number, inventoryId: number): Promise<string | null> {
    const row = await this.repo.latest(projectId, inventoryId);
    return row ? this.box.open(row.state) : null;
  }

  async list(projectId: number, inventoryId: number): Promise<TerraformStateVersion[]> {
    await this.inventories.get(projectId, inventoryId);
    const [rows, plans] = await Promise.all([
      this.repo.list(projectId, inventoryId),
      this.repo.plans(projectId, inventoryId),
    ]);
    const byTask = new Map(plans.map((p) => [p.task_id, p]));
    return rows.map((row) => presentListedVersion(row, row.task_id === null ? undefined : byTask.get(row.task_id)));
  }

  /** What changed from one version of the workspace's state to another, values redacted as in `get`. */
  async diff(projectId: number, inventoryId: number, fromId: number, toId: number): Promise<StateDiff> {
    await this.inventories.get(projectId, inventoryId);
    const [from, to] = await Promise.all([
      this.repo.find(projectId, inventoryId, fromId),
      this.repo.find(projectId, inventoryId, toId),
    ]);
    if (!from || !to) throw new NotFoundError(NO_VERSION, { code: ErrorCodes.stateVersionNotFound });
    return diffStates(from.id, this.box.open(from.state), to.id, this.box.open(to.state));
  }

  async get(projectId: number, inventoryId: number, id: number): Promise<TerraformState> {
    await this.inventories.get(projectId, inventoryId);
    const row = await this.repo.find(projectId, inventoryId, id);
    if (!row) throw new NotFoundError(NO_STATE, { code: ErrorCodes.stateNotFound });
    return presentState(row, redactState(this.box.open(row.state)));
  }

  /** One version as terraform wrote it, secrets included (owners only, for a download). */
  async download(projectId: number, inventoryId: number, id: number): Promise<{ name: string; state: string }> {
    const inventory = await this.inventories.get(projectId, inventoryId);
    const row = await this.repo.find(projectId, inventoryId, id);
    if (!row) throw new NotFoundError(NO_STATE, { code: ErrorCodes.stateNotFound });
    const safeName = inventory.inventory.replace(/[^A-Za-z0-9._-]+/g, '_') || 'workspace';
    return { name: `${safeName}-${row.id}.tfstate`, state: this.box.open(row.state) };
  }

  /** Deletes one version, or the whole state of the workspace (`id` null); a missing version is 404. */
  async purge(actor: Actor, projectId: number, inventoryId: number, id: number | null): Promise<void> {
    const inventory = await this.inventories.get(projectId, inventoryId);
    const version = id === null ? undefined : await this.repo.find(projectId, inventoryId, id);
    const gone = await this.repo.delete(projectId, inventoryId, id);
    if (id !== null && gone === 0) throw new NotFoundError(NO_STATE, { code: ErrorCodes.stateNotFound });
    // Purging a workspace without versions changes nothing: no entry.
    if (gone > 0)
      await this.audit.record({
        action: 'delete',
        objectType: 'terraform_state',
        objectId: inventoryId,
        projectId,
        before: version
          ? { version_id: version.id, serial: version.serial, lineage: version.lineage, task_id: version.task_id }
          : { versions: gone },
      });
    await this.events?.record({
      projectId,
      userId: actor.id,
      objectType: 'inventory',
      objectId: inventoryId,
      description:
        id === null
          ? `State of workspace ${inventory.name} purged (${gone} version(s))`
          : `State version #${id} of workspace ${inventory.name} deleted`,
    });
  }
}
