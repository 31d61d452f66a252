import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { idColumn, idType } from './helpers.js';

/**
 * Schedules and integrations that start a workflow instead of a template: `workflow_id` (a
 * workflow's schedules and integrations go with it) and `template_id` made nullable, since a
 * workflow one has no template. Exactly one of the two is set; the services check it.
 *
 * PostgreSQL and MySQL/MariaDB change the column in place (MySQL's MODIFY keeps the foreign key).
 * SQLite cannot drop a NOT NULL: the table is rebuilt as SQLite documents it (ALTER TABLE, "other
 * kinds of table schema changes"), with foreign keys off so the children (aliases, matchers,
 * extracted values, webhook deliveries) keep their rows, and a foreign_key_check before COMMIT.
 * Kysely runs SQLite migrations outside a transaction, which lets the PRAGMA take effect.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'sqlite') {
    await rebuildSqlite(db);
    return;
  }
  for (const table of ['schedule', 'integration'] as const) {
    if (engine === 'postgres') {
      await db.schema
        .alterTable(table)
        .alterColumn('template_id', (c) => c.dropNotNull())
        .execute();
    } else {
      await db.schema.alterTable(table).modifyColumn('template_id', 'integer').execute();
    }
    await db.schema.alterTable(table).addColumn('workflow_id', 'integer').execute();
    await db.schema
      .alterTable(table)
      .addForeignKeyConstraint(`${table}_workflow_fk`, ['workflow_id'], 'workflow', ['id'], (c) =>
        c.onDelete('cascade'),
      )
      .execute();
  }
}

type Table = CreateTableBuilder<string, never>;

/** `schedule` as migration 004 made it, `template_id` nullable, plus `workflow_id`. */
function scheduleColumns(t: Table, engine: Engine): Table {
  return t
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('template_id', 'integer', (c) => c.references('template.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('cron_format', 'text', (c) => c.notNull())
    .addColumn('repository_id', 'integer', (c) => c.references('repository.id'))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('last_fired', 'text')
    .addColumn('active_since', 'text', (c) => c.notNull())
    .addColumn('last_commit_hash', 'text')
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'integer', (c) => c.references('workflow.id').onDelete('cascade'));
}

/** `integration` as migration 005 made it, `template_id` nullable, plus `workflow_id`. */
function integrationColumns(t: Table, engine: Engine): Table {
  return t
    .addColumn('id', idType(engine), idColumn(engine))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('template_id', 'integer', (c) => c.references('template.id'))
    .addColumn('auth_method', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('auth_header', 'text')
    .addColumn('auth_secret_id', 'integer', (c) => c.references('access_key.id'))
    .addColumn('searchable', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('task_params', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'integer', (c) => c.references('workflow.id').onDelete('cascade'));
}

const SCHEDULE_COLUMNS =
  'id, project_id, template_id, name, cron_format, repository_id, active, last_fired, active_since, last_commit_hash, created';
const INTEGRATION_COLUMNS =
  'id, project_id, name, template_id, auth_method, auth_header, auth_secret_id, searchable, task_params, created';

async function rebuildSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await sql`BEGIN`.execute(db);
    try {
      // AUTOINCREMENT never reuses an id: the rebuilt tables carry on from the old counters.
      const seqs = await sql<{
        name: string;
        seq: number;
      }>`SELECT name, seq FROM sqlite_sequence WHERE name IN ('schedule', 'integration')`.execute(db);
      await scheduleColumns(db.schema.createTable('new_schedule') as unknown as Table, 'sqlite').execute();
      await sql
        .raw(`INSERT INTO new_schedule (${SCHEDULE_COLUMNS}) SELECT ${SCHEDULE_COLUMNS} FROM schedule`)
        .execute(db);
      await sql`DROP TABLE schedule`.execute(db);
      await sql`ALTER TABLE new_schedule RENAME TO schedule`.execute(db);
      await db.schema.createIndex('schedule_project_idx').on('schedule').columns(['project_id', 'id']).execute();

      await integrationColumns(db.schema.createTable('new_integration') as unknown as Table, 'sqlite').execute();
      await sql
        .raw(`INSERT INTO new_integration (${INTEGRATION_COLUMNS}) SELECT ${INTEGRATION_COLUMNS} FROM integration`)
        .execute(db);
      await sql`DROP TABLE integration`.execute(db);
      await sql`ALTER TABLE new_integration RENAME TO integration`.execute(db);
      await db.schema.createIndex('integration_project_idx').on('integration').columns(['project_id', 'id']).execute();

      for (const { name, seq } of seqs.rows) {
        await sql`DELETE FROM sqlite_sequence WHERE name = ${name}`.execute(db);
        await sql`INSERT INTO sqlite_sequence (name, seq) VALUES (${name}, ${seq})`.execute(db);
      }

      const broken = await sql`PRAGMA foreign_key_check`.execute(db);
      if (broken.rows.length > 0)
        throw new Error(
          `foreign key check failed after rebuilding schedule/integration: ${JSON.stringify(broken.rows.slice(0, 5))}`,
        );
      await sql`COMMIT`.execute(db);
    } catch (e) {
      await sql`ROLLBACK`.execute(db);
      throw e;
    }
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
