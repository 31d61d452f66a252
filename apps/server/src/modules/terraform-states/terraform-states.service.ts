import type { TerraformState, TerraformStateVersion } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { NotFoundError } from '../../platform/errors.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import { presentState, presentStateVersion } from './terraform-states.presenter.js';
import type { TerraformStatesRepository } from './terraform-states.repository.js';
import { redactState } from './state-redaction.js';

const NO_STATE = 'No state available.';

/** State versions of Terraform/OpenTofu workspace inventories: stored sealed, shown redacted. */
export class TerraformStatesService {
  constructor(
    private readonly repo: TerraformStatesRepository,
    private readonly inventories: InventoriesService,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** Stores the state a task left in a workspace; `status` is the task's final status. */
  async record(v: {
    projectId: number;
    inventoryId: number;
    taskId: number;
    status: string;
    state: string;
  }): Promise<void> {
    await this.repo.insert({
      project_id: v.projectId,
      inventory_id: v.inventoryId,
      task_id: v.taskId,
      status: v.status,
      state: this.box.seal(v.state),
      created: this.clock.now().toISOString(),
    });
  }

  async list(projectId: number, inventoryId: number): Promise<TerraformStateVersion[]> {
    await this.inventories.get(projectId, inventoryId);
    return (await this.repo.list(projectId, inventoryId)).map(presentStateVersion);
  }

  async get(projectId: number, inventoryId: number, id: number): Promise<TerraformState> {
    await this.inventories.get(projectId, inventoryId);
    const row = await this.repo.find(projectId, inventoryId, id);
    if (!row) throw new NotFoundError(NO_STATE);
    return presentState(row, redactState(this.box.open(row.state)));
  }
}
