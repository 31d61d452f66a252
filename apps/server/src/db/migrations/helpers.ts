import type { ColumnDefinitionBuilder } from 'kysely';
import type { Engine } from '../db.js';

/**
 * What a migration must do for MySQL/MariaDB, beyond what `MysqlSchemaPlugin` (mysql-schema.ts)
 * does for it on every `createTable`/`alterTable` (utf8mb4 binary collation, `text` as `longtext`,
 * text defaults as expressions, inline `references` as table-level foreign keys):
 * - a text column in a primary key, unique constraint or index: `keyText(engine, n)`;
 * - an auto-increment id: `.addColumn('id', idType(engine), idColumn(engine))`;
 * - a foreign key on an added column: its own `addForeignKeyConstraint` statement;
 * - raw SQL written for one engine only, behind `if (engine === ...)`. DDL is not transactional on
 *   MySQL: a migration that fails half-way stays half-applied, so keep each one small.
 */

/** Auto-increment primary keys differ by engine; everything else in migrations is shared. */
export function idType(engine: Engine): 'serial' | 'integer' {
  return engine === 'postgres' ? 'serial' : 'integer';
}
export function idColumn(engine: Engine) {
  return (c: ColumnDefinitionBuilder) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
}

/**
 * Text that a key is built on (primary key, unique constraint, index): `text` on SQLite and
 * PostgreSQL; `varchar(length)` on MySQL/MariaDB, which cannot index unbounded text. `length`
 * counts characters and must hold the longest value the API lets in (a longer one fails there).
 * An index holds at most 3072 bytes, 4 a character: 768 characters over all its text columns.
 */
export function keyText(engine: Engine, length = 255): 'text' | `varchar(${number})` {
  return engine === 'mysql' ? `varchar(${length})` : 'text';
}
