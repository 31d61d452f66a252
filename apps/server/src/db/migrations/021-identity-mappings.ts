import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType, keyText } from './helpers.js';

/**
 * Group to role mapping: rules that give directory groups (LDAP, or an OpenID Connect provider's
 * groups claim) the admin flag or a project role at sign-in.
 * - `identity_mapping`: the rules, by source (`ldap` or a provider id);
 * - `project_user.mapped_source`/`mapped_group`: the rule that made a membership; null for one
 *   made by hand, which sign-in never touches;
 * - `identity_admin_grant`: the admin flags a rule gave, so only those are taken back when the
 *   user leaves the group (an admin made by hand stays one).
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('identity_mapping')
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('source', keyText(engine, 64), (c) => c.notNull())
    .addColumn('group_name', 'text', (c) => c.notNull())
    .addColumn('admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('project_id', 'integer', (c) => c.references('project.id').onDelete('cascade'))
    .addColumn('role', 'text')
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('identity_mapping_source_idx').on('identity_mapping').column('source').execute();

  await db.schema.alterTable('project_user').addColumn('mapped_source', 'text').execute();
  await db.schema.alterTable('project_user').addColumn('mapped_group', 'text').execute();

  await db.schema
    .createTable('identity_admin_grant')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('user.id').onDelete('cascade'))
    .addColumn('source', keyText(engine, 64), (c) => c.notNull())
    .addColumn('group_name', 'text', (c) => c.notNull())
    .execute();
}
