import type { TeamSort } from '@gantry/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export interface MemberRow {
  id: number;
  name: string;
  username: string;
  role: string;
  /** The mapping that made the membership (group mapping at sign-in); null when made by hand. */
  mapped_source: string | null;
  mapped_group: string | null;
}

const SORT_COLUMNS = {
  name: 'user.name',
  username: 'user.username',
  email: 'user.email',
  role: 'project_user.role',
} as const satisfies Record<TeamSort, string>;

/** project_user rows joined with their users; always scoped by project. */
export class TeamRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(projectId: number, sort: TeamSort, order: 'asc' | 'desc'): Promise<MemberRow[]> {
    const column = SORT_COLUMNS[sort];
    return this.db
      .selectFrom('project_user')
      .innerJoin('user', 'user.id', 'project_user.user_id')
      .select(['user.id', 'user.name', 'user.username', 'project_user.role', 'project_user.mapped_source', 'project_user.mapped_group'])
      .where('project_user.project_id', '=', projectId)
      .orderBy(column, order)
      .orderBy('user.id')
      .execute();
  }

  find(projectId: number, userId: number): Promise<MemberRow | undefined> {
    return this.db
      .selectFrom('project_user')
      .innerJoin('user', 'user.id', 'project_user.user_id')
      .select(['user.id', 'user.name', 'user.username', 'project_user.role', 'project_user.mapped_source', 'project_user.mapped_group'])
      .where('project_user.project_id', '=', projectId)
      .where('project_user.user_id', '=', userId)
      .executeTakeFirst();
  }

  async countOwners(projectId: number): Promise<number> {
    const r = await this.db
      .selectFrom('project_user')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .where('role', '=', 'owner')
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async insert(projectId: number, userId: number, role: string, created: string): Promise<void> {
    await this.db.insertInto('project_user').values({ project_id: projectId, user_id: userId, role, created }).execute();
  }

  /** A role set by hand makes the membership a manual one: sign-in's group mapping leaves it alone from then on. */
  async setRole(projectId: number, userId: number, role: string): Promise<void> {
    await this.db.updateTable('project_user').set({ role, mapped_source: null, mapped_group: null }).where('project_id', '=', projectId).where('user_id', '=', userId).execute();
  }

  async delete(projectId: number, userId: number): Promise<void> {
    await this.db.deleteFrom('project_user').where('project_id', '=', projectId).where('user_id', '=', userId).execute();
  }
}
