import type { Kysely, Selectable } from 'kysely';
import type { Database, EnvironmentSecretTable, EnvironmentTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

export type EnvironmentRow = Selectable<EnvironmentTable>;
export type EnvironmentSecretRow = Selectable<EnvironmentSecretTable>;
export type EnvironmentWithSecrets = EnvironmentRow & { secrets: Array<Pick<EnvironmentSecretRow, 'id' | 'name' | 'type'>> };
type Values = Pick<EnvironmentRow, 'name' | 'json' | 'env'>;

export class EnvironmentsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(projectId: number): Promise<EnvironmentWithSecrets[]> {
    const envs = await this.db.selectFrom('environment').selectAll().where('project_id', '=', projectId).orderBy('name').orderBy('id').execute();
    const secrets = await this.db
      .selectFrom('environment_secret')
      .select(['id', 'name', 'type', 'environment_id'])
      .where('project_id', '=', projectId)
      .orderBy('name')
      .execute();
    return envs.map((e) => ({
      ...e,
      secrets: secrets.filter((s) => s.environment_id === e.id).map(({ id, name, type }) => ({ id, name, type })),
    }));
  }

  async find(projectId: number, id: number): Promise<EnvironmentWithSecrets | undefined> {
    const env = await this.db.selectFrom('environment').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    if (!env) return undefined;
    const secrets = await this.db
      .selectFrom('environment_secret')
      .select(['id', 'name', 'type'])
      .where('project_id', '=', projectId)
      .where('environment_id', '=', id)
      .orderBy('name')
      .execute();
    return { ...env, secrets };
  }

  /** Sealed values, for the task engine. */
  sealedSecrets(projectId: number, environmentId: number): Promise<EnvironmentSecretRow[]> {
    return this.db
      .selectFrom('environment_secret')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('environment_id', '=', environmentId)
      .execute();
  }

  insert(projectId: number, values: Values, created: string): Promise<EnvironmentRow> {
    return insertReturningAll(this.db, 'environment', { ...values, project_id: projectId, created });
  }

  async update(projectId: number, id: number, values: Values): Promise<void> {
    await this.db.updateTable('environment').set(values).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('environment').where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async insertSecret(projectId: number, environmentId: number, s: { name: string; type: string; secret: string }): Promise<void> {
    await this.db.insertInto('environment_secret').values({ ...s, project_id: projectId, environment_id: environmentId }).execute();
  }

  async updateSecret(projectId: number, environmentId: number, id: number, s: { name: string; type: string; secret?: string }): Promise<number> {
    const r = await this.db
      .updateTable('environment_secret')
      .set(s)
      .where('project_id', '=', projectId)
      .where('environment_id', '=', environmentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async deleteSecret(projectId: number, environmentId: number, id: number): Promise<void> {
    await this.db
      .deleteFrom('environment_secret')
      .where('project_id', '=', projectId)
      .where('environment_id', '=', environmentId)
      .where('id', '=', id)
      .execute();
  }
}
