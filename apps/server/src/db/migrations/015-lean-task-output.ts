import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db.js';

/**
 * PostgreSQL only: `task_output` loses its serial id and its foreign key. Every stored log line
 * paid for a sequence value, a primary-key index entry and a per-row foreign-key check that locks
 * the task row; together they cut ingest to a third of what the table takes without them. A line
 * is identified by (task_id, seq) already. What the foreign key's cascade did, a statement-level
 * trigger does: deleting tasks (one, a template's, a project's) deletes their output in one
 * statement. Nothing writes output for a task that does not exist: lines come from the task's own
 * run or from the runner that holds it. SQLite keeps the table as it is: there neither costs more
 * than noise.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`DO $$
    DECLARE c text;
    BEGIN
      FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'task_output'::regclass AND contype = 'f' LOOP
        EXECUTE format('ALTER TABLE task_output DROP CONSTRAINT %I', c);
      END LOOP;
    END $$`.execute(db);
  await sql`ALTER TABLE task_output DROP COLUMN IF EXISTS id`.execute(db);
  await sql`CREATE OR REPLACE FUNCTION gantry_delete_task_output() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM task_output WHERE task_id IN (SELECT id FROM gone);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER task_output_follows_task AFTER DELETE ON task
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION gantry_delete_task_output()`.execute(db);
}
