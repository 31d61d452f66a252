import type { Kysely, Selectable } from 'kysely';
import type { Database, RepositoryTable } from '../../db/types.js';
import { insertReturningAll } from '../../db/portable.js';

export type RepositoryRow = Selectable<RepositoryTable>;
type Values = Pick<RepositoryRow, 'name' | 'git_url' | 'git_branch' | 'ssh_key_id'>;

export class RepositoriesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(projectId: number): Promise<RepositoryRow[]> {
    return this.db.selectFrom('repository').selectAll().where('project_id', '=', projectId).orderBy('name').orderBy('id').execute();
  }

  find(projectId: number, id: number): Promise<RepositoryRow | undefined> {
    return this.db.selectFrom('repository').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  }

  insert(projectId: number, values: Values, created: string): Promise<RepositoryRow> {
    return insertReturningAll(this.db, 'repository', { ...values, project_id: projectId, created });
  }

  async update(projectId: number, id: number, values: Values): Promise<void> {
    await this.db.updateTable('repository').set(values).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('repository').where('project_id', '=', projectId).where('id', '=', id).execute();
  }
}
