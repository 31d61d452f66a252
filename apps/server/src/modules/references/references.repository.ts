import type { References } from '@gantry/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

const none = (): References => ({ templates: [], inventories: [], repositories: [], schedules: [], integrations: [] });

/**
 * The one place that knows which rows point at which: keys are used by repositories and
 * inventories (login and become), repositories by file inventories. Later features (templates,
 * schedules, integrations) add their lists here.
 */
export class ReferencesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async forKey(projectId: number, keyId: number): Promise<References> {
    const refs = none();
    refs.repositories = await this.db
      .selectFrom('repository')
      .select(['id', 'name'])
      .where('project_id', '=', projectId)
      .where('ssh_key_id', '=', keyId)
      .orderBy('name')
      .execute();
    refs.inventories = await this.db
      .selectFrom('inventory')
      .select(['id', 'name'])
      .where('project_id', '=', projectId)
      .where((eb) => eb.or([eb('ssh_key_id', '=', keyId), eb('become_key_id', '=', keyId)]))
      .orderBy('name')
      .execute();
    return refs;
  }

  async forRepository(projectId: number, repositoryId: number): Promise<References> {
    const refs = none();
    refs.inventories = await this.db
      .selectFrom('inventory')
      .select(['id', 'name'])
      .where('project_id', '=', projectId)
      .where('repository_id', '=', repositoryId)
      .orderBy('name')
      .execute();
    return refs;
  }

  async forInventory(_projectId: number, _inventoryId: number): Promise<References> {
    return none();
  }

  async forEnvironment(_projectId: number, _environmentId: number): Promise<References> {
    return none();
  }
}
