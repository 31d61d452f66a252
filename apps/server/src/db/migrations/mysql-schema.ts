import {
  sql,
  type AlterTableNode,
  type ColumnDefinitionNode,
  type CreateTableNode,
  type ForeignKeyConstraintNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RawNode,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

const TABLE_OPTIONS = sql.raw('ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin').toOperationNode();
const LONGTEXT = sql.raw('longtext').toOperationNode();

/**
 * Runs the migrations' DDL on MySQL/MariaDB as the engine needs it, so one migration serves every
 * engine:
 * - every table is InnoDB in utf8mb4 with a binary collation, so comparisons, unique keys and
 *   ordering are exact and case-sensitive as on SQLite and PostgreSQL (MySQL's default collations
 *   would make `Alice` and `alice` one username and compare tokens case-insensitively);
 * - `text` is `longtext`: MySQL's `text` holds 64 KiB only, the other engines' is unbounded
 *   (columns that carry a key use `keyText()` instead, a `varchar`);
 * - a default on a text column is written as an expression, `DEFAULT ('')` (MySQL 8 refuses a
 *   literal default on a text column);
 * - a column's `REFERENCES` becomes a table-level `FOREIGN KEY`, since MySQL 8 parses an inline
 *   reference and silently ignores it (no constraint, no cascade).
 * A foreign key added to an existing table must be its own `addForeignKeyConstraint` statement.
 */
export class MysqlSchemaPlugin implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (node.kind === 'CreateTableNode') return createTable(node);
    if (node.kind === 'AlterTableNode') return alterTable(node);
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

function createTable(node: CreateTableNode): CreateTableNode {
  const foreignKeys: ForeignKeyConstraintNode[] = [];
  const columns = node.columns.map(({ references, ...c }) => {
    if (references) foreignKeys.push({ kind: 'ForeignKeyConstraintNode', columns: [c.column], references });
    return column(c);
  });
  return {
    ...node,
    columns,
    constraints: [...(node.constraints ?? []), ...foreignKeys],
    endModifiers: [...(node.endModifiers ?? []), TABLE_OPTIONS],
  };
}

function alterTable(node: AlterTableNode): AlterTableNode {
  if (!node.columnAlterations) return node;
  const columnAlterations = node.columnAlterations.map((a) => {
    if (a.kind !== 'AddColumnNode') return a;
    if (a.column.references) {
      throw new Error(
        'MySQL ignores a REFERENCES in a column definition: add the foreign key with addForeignKeyConstraint',
      );
    }
    return { ...a, column: column(a.column) };
  });
  return { ...node, columnAlterations };
}

function column(c: ColumnDefinitionNode): ColumnDefinitionNode {
  if (!isText(c.dataType)) return c;
  const out: ColumnDefinitionNode = { ...c, dataType: LONGTEXT };
  return c.defaultTo
    ? { ...out, defaultTo: { ...c.defaultTo, defaultValue: parenthesised(c.defaultTo.defaultValue) } }
    : out;
}

function isText(n: OperationNode): boolean {
  return n.kind === 'DataTypeNode' && 'dataType' in n && n.dataType === 'text';
}

function parenthesised(value: OperationNode): RawNode {
  return { kind: 'RawNode', sqlFragments: ['(', ')'], parameters: [value] };
}
