import { sql, type Kysely, type Selectable } from 'kysely';
import { insertReturningAll } from '../../db/portable.js';
import type {
  Database,
  IntegrationAliasTable,
  IntegrationExtractValueTable,
  IntegrationMatcherTable,
  IntegrationTable,
} from '../../db/types.js';

export type IntegrationRow = Selectable<IntegrationTable>;
export type IntegrationWithTemplate = IntegrationRow & { tpl_name: string };
export type AliasRow = Selectable<IntegrationAliasTable>;
export type MatcherRow = Selectable<IntegrationMatcherTable>;
export type ExtractValueRow = Selectable<IntegrationExtractValueTable>;

type IntegrationValues = Omit<IntegrationRow, 'id' | 'project_id' | 'created'>;
export type MatcherValues = Omit<MatcherRow, 'id' | 'project_id' | 'integration_id'>;
export type ExtractValueValues = Omit<ExtractValueRow, 'id' | 'project_id' | 'integration_id'>;

/** A matcher or extracted-value table: both are children of one integration. */
type Part = 'integration_matcher' | 'integration_extract_value';

/**
 * Integrations and what hangs from them. Every query is scoped by project; matchers, values and
 * aliases are also scoped by their integration, so an id from elsewhere never finds a row.
 */
export class IntegrationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private base() {
    return (
      this.db
        .selectFrom('integration')
        .leftJoin('template', 'template.id', 'integration.template_id')
        .leftJoin('workflow', 'workflow.id', 'integration.workflow_id')
        .selectAll('integration')
        // The template's name, or the workflow's for an integration that starts a workflow.
        .select(sql<string>`coalesce(${sql.ref('template.name')}, ${sql.ref('workflow.name')}, '')`.as('tpl_name'))
    );
  }

  list(projectId: number): Promise<IntegrationWithTemplate[]> {
    return this.base()
      .where('integration.project_id', '=', projectId)
      .orderBy('integration.name')
      .orderBy('tpl_name')
      .orderBy('integration.id')
      .execute();
  }

  find(projectId: number, id: number): Promise<IntegrationWithTemplate | undefined> {
    return this.base()
      .where('integration.project_id', '=', projectId)
      .where('integration.id', '=', id)
      .executeTakeFirst();
  }

  /** The integrations a project-level alias reaches. */
  searchable(projectId: number): Promise<IntegrationWithTemplate[]> {
    return this.base()
      .where('integration.project_id', '=', projectId)
      .where('integration.searchable', '=', 1)
      .orderBy('integration.id')
      .execute();
  }

  insert(projectId: number, v: IntegrationValues, now: string): Promise<IntegrationRow> {
    return insertReturningAll(this.db, 'integration', { ...v, project_id: projectId, created: now });
  }

  async update(projectId: number, id: number, v: IntegrationValues): Promise<void> {
    await this.db.updateTable('integration').set(v).where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  async delete(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('integration').where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  /** Aliases of one integration, or the project-level ones when `integrationId` is null. */
  aliases(projectId: number, integrationId: number | null): Promise<AliasRow[]> {
    let q = this.db.selectFrom('integration_alias').selectAll().where('project_id', '=', projectId);
    q = integrationId === null ? q.where('integration_id', 'is', null) : q.where('integration_id', '=', integrationId);
    return q.orderBy('id').execute();
  }

  findAlias(projectId: number, integrationId: number | null, id: number): Promise<AliasRow | undefined> {
    let q = this.db
      .selectFrom('integration_alias')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id);
    q = integrationId === null ? q.where('integration_id', 'is', null) : q.where('integration_id', '=', integrationId);
    return q.executeTakeFirst();
  }

  /** The receiver's lookup: an alias is unique across every project. */
  aliasByValue(alias: string): Promise<AliasRow | undefined> {
    return this.db.selectFrom('integration_alias').selectAll().where('alias', '=', alias).executeTakeFirst();
  }

  insertAlias(projectId: number, integrationId: number | null, alias: string, now: string): Promise<AliasRow> {
    return insertReturningAll(this.db, 'integration_alias', {
      project_id: projectId,
      integration_id: integrationId,
      alias,
      created: now,
    });
  }

  async deleteAlias(projectId: number, id: number): Promise<void> {
    await this.db.deleteFrom('integration_alias').where('project_id', '=', projectId).where('id', '=', id).execute();
  }

  matchers(projectId: number, integrationId: number): Promise<MatcherRow[]> {
    return this.db
      .selectFrom('integration_matcher')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('integration_id', '=', integrationId)
      .orderBy('id')
      .execute();
  }

  values(projectId: number, integrationId: number): Promise<ExtractValueRow[]> {
    return this.db
      .selectFrom('integration_extract_value')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('integration_id', '=', integrationId)
      .orderBy('id')
      .execute();
  }

  findMatcher(projectId: number, integrationId: number, id: number): Promise<MatcherRow | undefined> {
    return this.db
      .selectFrom('integration_matcher')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  findValue(projectId: number, integrationId: number, id: number): Promise<ExtractValueRow | undefined> {
    return this.db
      .selectFrom('integration_extract_value')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  insertMatcher(projectId: number, integrationId: number, v: MatcherValues): Promise<MatcherRow> {
    return insertReturningAll(this.db, 'integration_matcher', {
      ...v,
      project_id: projectId,
      integration_id: integrationId,
    });
  }

  insertValue(projectId: number, integrationId: number, v: ExtractValueValues): Promise<ExtractValueRow> {
    return insertReturningAll(this.db, 'integration_extract_value', {
      ...v,
      project_id: projectId,
      integration_id: integrationId,
    });
  }

  async updateMatcher(projectId: number, integrationId: number, id: number, v: MatcherValues): Promise<void> {
    await this.db
      .updateTable('integration_matcher')
      .set(v)
      .where('project_id', '=', projectId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .execute();
  }

  async updateValue(projectId: number, integrationId: number, id: number, v: ExtractValueValues): Promise<void> {
    await this.db
      .updateTable('integration_extract_value')
      .set(v)
      .where('project_id', '=', projectId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .execute();
  }

  async deletePart(table: Part, projectId: number, integrationId: number, id: number): Promise<void> {
    await this.db
      .deleteFrom(table)
      .where('project_id', '=', projectId)
      .where('integration_id', '=', integrationId)
      .where('id', '=', id)
      .execute();
  }
}
