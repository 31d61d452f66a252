import type { References } from '@gantry/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

const none = (): References => ({ templates: [], inventories: [], repositories: [], schedules: [], integrations: [] });

/**
 * The one place that knows which rows point at which: keys are used by repositories, inventories
 * (login and become) and template vaults; repositories by file inventories and templates;
 * inventories and variable groups by templates; build templates by deploy templates; templates
 * by schedules and integrations; keys by integrations (their secret); apps by templates.
 */
export class ReferencesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async forKey(projectId: number, keyId: number): Promise<References> {
    const refs = none();
    refs.repositories = await this.db
      .selectFrom('repository')
      .select(['id', 'name'])
      .where('project_id', '=', projectId)
      .where('ssh_key_id', '=', keyId)
      .orderBy('name')
      .execute();
    refs.inventories = await this.db
      .selectFrom('inventory')
      .select(['id', 'name'])
      .where('project_id', '=', projectId)
      .where((eb) => eb.or([eb('ssh_key_id', '=', keyId), eb('become_key_id', '=', keyId)]))
      .orderBy('name')
      .execute();
    refs.templates = await this.db
      .selectFrom('template')
      .select(['id', 'name'])
      .where('project_id', '=', projectId)
      .where('id', 'in', (eb) => eb.selectFrom('template_vault').select('template_id').where('project_id', '=', projectId).where('vault_key_id', '=', keyId))
      .orderBy('name')
      .execute();
    refs.integrations = await this.integrationsWhere(projectId, 'auth_secret_id', keyId);
    return refs;
  }

  async forRepository(projectId: number, repositoryId: number): Promise<References> {
    const refs = none();
    refs.inventories = await this.db
      .selectFrom('inventory')
      .select(['id', 'name'])
      .where('project_id', '=', projectId)
      .where('repository_id', '=', repositoryId)
      .orderBy('name')
      .execute();
    refs.templates = await this.templatesWhere(projectId, 'repository_id', repositoryId);
    refs.schedules = await this.db.selectFrom('schedule').select(['id', 'name']).where('project_id', '=', projectId).where('repository_id', '=', repositoryId).orderBy('name').execute();
    return refs;
  }

  async forInventory(projectId: number, inventoryId: number): Promise<References> {
    return { ...none(), templates: await this.templatesListing(projectId, 'inventory', inventoryId) };
  }

  async forEnvironment(projectId: number, environmentId: number): Promise<References> {
    return { ...none(), templates: await this.templatesListing(projectId, 'environment', environmentId) };
  }

  /** Deploy templates built on this one, its schedules and the integrations that start it. */
  async forTemplate(projectId: number, templateId: number): Promise<References> {
    return {
      ...none(),
      templates: await this.templatesWhere(projectId, 'build_template_id', templateId),
      schedules: await this.db.selectFrom('schedule').select(['id', 'name']).where('project_id', '=', projectId).where('template_id', '=', templateId).orderBy('name').execute(),
      integrations: await this.integrationsWhere(projectId, 'template_id', templateId),
    };
  }

  /** The schedules and integrations that start this workflow. */
  async forWorkflow(projectId: number, workflowId: number): Promise<References> {
    return {
      ...none(),
      schedules: await this.db
        .selectFrom('schedule')
        .select(['id', 'name'])
        .where('project_id', '=', projectId)
        .where('workflow_id', '=', workflowId)
        .orderBy('name')
        .execute(),
      integrations: await this.integrationsWhere(projectId, 'workflow_id', workflowId),
    };
  }

  /** Templates of every project that run this app; named with their project, as they span projects. */
  async forApp(appId: string): Promise<References> {
    const rows = await this.db
      .selectFrom('template')
      .innerJoin('project', 'project.id', 'template.project_id')
      .select(['template.id as id', 'template.name as name', 'project.name as project'])
      .where('template.app', '=', appId)
      .orderBy('project.name')
      .orderBy('template.name')
      .execute();
    return { ...none(), templates: rows.map((r) => ({ id: r.id, name: `${r.project} / ${r.name}` })) };
  }

  private integrationsWhere(projectId: number, column: 'template_id' | 'workflow_id' | 'auth_secret_id', id: number) {
    return this.db.selectFrom('integration').select(['id', 'name']).where('project_id', '=', projectId).where(column, '=', id).orderBy('name').orderBy('id').execute();
  }

  /**
   * Templates that use a variable group or an inventory: as their first, further in their list
   * (migration 034) or as a run-time choice. The lists are JSON, read here for the project's
   * templates (a project has tens of them, not thousands).
   */
  private async templatesListing(projectId: number, kind: 'environment' | 'inventory', id: number) {
    const rows = await this.db
      .selectFrom('template')
      .select(['id', 'name', 'environment_id', 'environment_ids', 'inventory_id', 'inventory_ids', 'task_params'])
      .where('project_id', '=', projectId)
      .orderBy('name')
      .execute();
    const ids = (text: string | null | undefined, key?: string): unknown[] => {
      try {
        const v: unknown = JSON.parse(text || 'null');
        const list: unknown = key ? (v as Record<string, unknown> | null)?.[key] : v;
        return Array.isArray(list) ? list : [];
      } catch {
        return [];
      }
    };
    return rows
      .filter((r) =>
        kind === 'environment'
          ? r.environment_id === id || ids(r.environment_ids).includes(id) || ids(r.task_params, 'environment_choices').includes(id)
          : r.inventory_id === id || ids(r.inventory_ids).includes(id) || ids(r.task_params, 'inventory_choices').includes(id),
      )
      .map((r) => ({ id: r.id, name: r.name }));
  }

  private templatesWhere(projectId: number, column: 'repository_id' | 'inventory_id' | 'environment_id' | 'build_template_id', id: number) {
    return this.db.selectFrom('template').select(['id', 'name']).where('project_id', '=', projectId).where(column, '=', id).orderBy('name').execute();
  }
}
