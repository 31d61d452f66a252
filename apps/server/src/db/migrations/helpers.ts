import type { ColumnDefinitionBuilder } from 'kysely';
import type { Engine } from '../db.js';

/** Auto-increment primary keys differ by engine; everything else in migrations is shared. */
export function idType(engine: Engine): 'serial' | 'integer' {
  return engine === 'postgres' ? 'serial' : 'integer';
}
export function idColumn(engine: Engine) {
  return (c: ColumnDefinitionBuilder) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
}
