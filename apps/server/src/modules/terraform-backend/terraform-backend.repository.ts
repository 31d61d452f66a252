import type { Kysely, Selectable } from 'kysely';
import { insertUnlessDuplicate } from '../../db/portable.js';
import type { Database, TerraformAliasTable, TerraformLockTable } from '../../db/types.js';

export type AliasRow = Selectable<TerraformAliasTable>;
/** An alias with the status of the task it belongs to (null for a key's alias or a deleted task). */
export type AliasWithTask = AliasRow & { task_status: string | null };
/** A lock with the status of the task holding it (null when no task holds it, or the task is gone). */
export type LockRow = Selectable<TerraformLockTable> & { task_status: string | null };

/** Aliases, locks and the backend switch of workspaces; every read is scoped by project and workspace. */
export class TerraformBackendRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The aliases people use (not the ones of running tasks), oldest first. */
  aliases(projectId: number, inventoryId: number): Promise<AliasRow[]> {
    return this.db
      .selectFrom('terraform_alias')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId)
      .where('task_id', 'is', null)
      .orderBy('created')
      .orderBy('id')
      .execute();
  }

  findAlias(projectId: number, inventoryId: number, id: string): Promise<AliasRow | undefined> {
    return this.db
      .selectFrom('terraform_alias')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId)
      .where('task_id', 'is', null)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The alias a backend request names, whoever it belongs to. */
  resolve(id: string): Promise<AliasWithTask | undefined> {
    return this.db
      .selectFrom('terraform_alias as a')
      .leftJoin('task as t', 't.id', 'a.task_id')
      .selectAll('a')
      .select('t.status as task_status')
      .where('a.id', '=', id)
      .executeTakeFirst();
  }

  /** Inserts an alias; false when the id (or the task's one alias) is taken. */
  insertAlias(row: AliasRow): Promise<boolean> {
    return insertUnlessDuplicate(this.db, 'terraform_alias', row);
  }

  /** Gives a key's alias a new id (the old address stops at once); false when it is not there. */
  renameAlias(projectId: number, inventoryId: number, id: string, newId: string): Promise<boolean> {
    return this.updateKeyAlias(projectId, inventoryId, id, { id: newId });
  }

  setAliasKey(projectId: number, inventoryId: number, id: string, keyId: number): Promise<boolean> {
    return this.updateKeyAlias(projectId, inventoryId, id, { auth_key_id: keyId });
  }

  /** A key's alias of the workspace (never a task's one-time alias); false when it is not there. */
  private async updateKeyAlias(projectId: number, inventoryId: number, id: string, patch: { id?: string; auth_key_id?: number }): Promise<boolean> {
    const r = await this.db
      .updateTable('terraform_alias')
      .set(patch)
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId)
      .where('task_id', 'is', null)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async deleteAlias(projectId: number, inventoryId: number, id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('terraform_alias')
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId)
      .where('task_id', 'is', null)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  taskAlias(taskId: number): Promise<AliasRow | undefined> {
    return this.db.selectFrom('terraform_alias').selectAll().where('task_id', '=', taskId).executeTakeFirst();
  }

  /** The status of a task of the project (undefined when there is no such task). */
  async taskStatus(projectId: number, taskId: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('task')
      .select('status')
      .where('project_id', '=', projectId)
      .where('id', '=', taskId)
      .executeTakeFirst();
    return row?.status;
  }

  /** Ends a task's session: its alias and any lock it holds. */
  async deleteTaskSession(taskId: number): Promise<void> {
    await this.db.deleteFrom('terraform_alias').where('task_id', '=', taskId).execute();
    await this.db.deleteFrom('terraform_lock').where('task_id', '=', taskId).execute();
  }

  lock(inventoryId: number): Promise<LockRow | undefined> {
    return this.db
      .selectFrom('terraform_lock as l')
      .leftJoin('task as t', 't.id', 'l.task_id')
      .selectAll('l')
      .select('t.status as task_status')
      .where('l.inventory_id', '=', inventoryId)
      .executeTakeFirst();
  }

  /** Takes the workspace's lock; false when someone holds it (one insert, so one of two racers wins). */
  insertLock(row: Selectable<TerraformLockTable>): Promise<boolean> {
    return insertUnlessDuplicate(this.db, 'terraform_lock', row);
  }

  /** Releases the lock if it is still the one with `lockId`. */
  async deleteLock(inventoryId: number, lockId: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('terraform_lock')
      .where('inventory_id', '=', inventoryId)
      .where('lock_id', '=', lockId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async backendEnabled(projectId: number, inventoryId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('terraform_backend')
      .select('inventory_id')
      .where('project_id', '=', projectId)
      .where('inventory_id', '=', inventoryId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async setBackend(projectId: number, inventoryId: number, enabled: boolean, now: string): Promise<void> {
    if (enabled) {
      await insertUnlessDuplicate(this.db, 'terraform_backend', {
        inventory_id: inventoryId,
        project_id: projectId,
        created: now,
      });
    } else {
      await this.db
        .deleteFrom('terraform_backend')
        .where('project_id', '=', projectId)
        .where('inventory_id', '=', inventoryId)
        .execute();
    }
  }
}

/**
 * Inserts the row unless one with the same primary or unique key exists; answers whether it did.
 * The insert itself is the check, so of two racing inserts exactly one gets true, on every engine
 * (a plain INSERT whose duplicate-key error is recognised: SQLite, PostgreSQL 23505, MySQL 1062).
 */
