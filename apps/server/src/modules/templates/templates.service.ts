import {
  cannotDeleteMessage,
  hasReferences,
  type References,
  type templateInputSchema,
  ErrorCodes,
  type Drift,
} from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import type { EnvironmentsService } from '../environments/environments.service.js';
import type { EventsService } from '../events/events.service.js';
import type { InventoriesService } from '../inventories/inventories.service.js';
import type { KeysService } from '../keys/keys.service.js';
import type { ReferencesRepository } from '../references/references.repository.js';
import type { RepositoriesService } from '../repositories/repositories.service.js';
import { checkListLinks, listsToSave, type TemplateLists } from './template-lists.js';
import type { TemplateValues, TemplatesRepository, TemplateWithExtras } from './templates.repository.js';

/** A Terraform/OpenTofu template carries its drift once the terraform-plans module is wired in. */
export type TemplateWithDrift = TemplateWithExtras & { drift?: Drift | null };

export type TemplateInput = z.output<typeof templateInputSchema>;

export interface TemplateLinks {
  keys: KeysService;
  repositories: RepositoriesService;
  inventories: InventoriesService;
  environments: EnvironmentsService;
  /** Views live in their own module; only existence in the project is checked here. */
  viewExists(projectId: number, viewId: number): Promise<boolean>;
  /** Apps live in their own module (built-in or custom); only existence is checked here. */
  appExists(appId: string): Promise<boolean>;
  /** Whether a user belongs to the project: the users an approval policy names must. */
  isMember?(projectId: number, userId: number): Promise<boolean>;
}

export class TemplatesService implements ProjectResourceService<TemplateWithExtras, TemplateInput, TemplateInput> {
  constructor(
    private readonly repo: TemplatesRepository,
    private readonly links: TemplateLinks,
    private readonly refsRepo: ReferencesRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  /** The worst drift finding of Terraform/OpenTofu templates (terraform-plans); unset, none is shown. */
  driftOf: ((projectId: number, ids: number[]) => Promise<Map<number, Drift | null>>) | undefined = undefined;

  async list(projectId: number, query: Record<string, string | undefined>): Promise<TemplateWithDrift[]> {
    const viewId = query.view_id ? Number(query.view_id) : undefined;
    const rows = await this.repo.list(projectId, {
      app: query.app,
      viewId: Number.isInteger(viewId) ? viewId : undefined,
    });
    return this.withDrift(projectId, rows);
  }

  async get(projectId: number, id: number): Promise<TemplateWithDrift> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Template not found', { code: ErrorCodes.templateNotFound });
    return (await this.withDrift(projectId, [row]))[0]!;
  }

  /** Terraform/OpenTofu templates with their drift: one query for the whole list. */
  private async withDrift(projectId: number, rows: TemplateWithExtras[]): Promise<TemplateWithDrift[]> {
    const ids = rows.filter((r) => r.app === 'terraform' || r.app === 'tofu').map((r) => r.id);
    if (!ids.length || !this.driftOf) return rows;
    const drift = await this.driftOf(projectId, ids);
    return rows.map((r) => (drift.has(r.id) ? { ...r, drift: drift.get(r.id) ?? null } : r));
  }

  /** The template a task is started from: as get(), without its newest task. */
  async getForTask(projectId: number, id: number): Promise<TemplateWithExtras> {
    const row = await this.repo.findForTask(projectId, id);
    if (!row) throw new NotFoundError('Template not found', { code: ErrorCodes.templateNotFound });
    return row;
  }

  /**
   * The deploy templates a successful build of `buildTemplateId` starts (autorun). Asked after
   * every successful task: one narrow query, not the project's whole template list with each
   * template's newest task (which grew with the task history).
   */
  autorunDeployIds(projectId: number, buildTemplateId: number): Promise<number[]> {
    return this.repo.autorunDeployIds(projectId, buildTemplateId);
  }

  async create(actor: Actor, projectId: number, input: TemplateInput): Promise<TemplateWithExtras> {
    const lists = listsToSave(input, null);
    await this.checkLinks(projectId, input, null, lists);
    const row = await this.repo.insert(projectId, this.values(input, lists), this.clock.now().toISOString());
    await this.repo.replaceVaults(projectId, row.id, this.vaults(input));
    await this.log(actor, projectId, row.id, `Template ${row.name} created`);
    return this.get(projectId, row.id);
  }

  async update(actor: Actor, projectId: number, id: number, input: TemplateInput): Promise<void> {
    const lists = listsToSave(input, await this.get(projectId, id));
    await this.checkLinks(projectId, input, id, lists);
    await this.repo.update(projectId, id, this.values(input, lists));
    await this.repo.replaceVaults(projectId, id, this.vaults(input));
    await this.log(actor, projectId, id, `Template ${input.name} updated`);
  }

  /** Where the changes its own routes make are recorded (create, update and delete are recorded by resource-routes). */
  audit: AuditRecorder = noAudit;

  /** The name of a workflow of the project with a node that runs the template, or null (the composition root wires the workflows in). */
  usedByWorkflow: (projectId: number, templateId: number) => Promise<string | null> = async () => null;

  async setDescription(actor: Actor, projectId: number, id: number, description: string): Promise<void> {
    const row = await this.get(projectId, id);
    await this.repo.update(projectId, id, { description });
    await this.log(actor, projectId, id, `Template ${row.name} description changed`);
    await this.audit.record({
      action: 'update',
      objectType: 'template',
      objectId: id,
      projectId,
      before: { description: row.description },
      after: { description },
    });
  }

  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.get(projectId, id);
    // A workflow node that names it would fail at every run: the workflow changes first.
    const workflow = await this.usedByWorkflow(projectId, id);
    if (workflow !== null)
      throw new ConflictError(`Workflow ${workflow} runs this template: change it first`, {
        code: ErrorCodes.templateInWorkflow,
        name: workflow,
      });
    const refs = await this.refs(projectId, id);
    // A template's own schedules go with it; deploys built on it and integrations keep it.
    if (hasReferences({ ...refs, schedules: [] }))
      throw new ConflictError(cannotDeleteMessage('template'), { code: ErrorCodes.templateInUse, references: refs });
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Template ${row.name} deleted`);
  }

  /** Makes a workspace inventory of the template's app one of the template's workspaces. */
  async attachWorkspace(actor: Actor, projectId: number, id: number, inventoryId: number): Promise<void> {
    const template = await this.get(projectId, id);
    const inv = await this.workspaceFor(projectId, template.app, inventoryId);
    if (inv.template_id === id) return;
    if (inv.template_id !== null)
      throw new ValidationError('The workspace belongs to another template', {
        code: ErrorCodes.workspaceOtherTemplate,
      });
    const before = await this.workspaceIds(projectId, id);
    await this.links.inventories.setTemplate(projectId, inventoryId, id);
    await this.log(actor, projectId, id, `Workspace ${inv.name} attached to template ${template.name}`);
    await this.recordWorkspaces(projectId, id, before);
  }

  /** Detaches one of the template's workspaces; its default one stays. */
  async detachWorkspace(actor: Actor, projectId: number, id: number, inventoryId: number): Promise<void> {
    const template = await this.get(projectId, id);
    const inv = await this.workspaceFor(projectId, template.app, inventoryId);
    if (inv.template_id !== id)
      throw new ValidationError('The workspace is not attached to this template', {
        code: ErrorCodes.workspaceNotAttached,
      });
    if (template.inventory_id === inventoryId)
      throw new ValidationError('The default workspace cannot be detached', {
        code: ErrorCodes.defaultWorkspaceDetach,
      });
    const before = await this.workspaceIds(projectId, id);
    await this.links.inventories.setTemplate(projectId, inventoryId, null);
    await this.log(actor, projectId, id, `Workspace ${inv.name} detached from template ${template.name}`);
    await this.recordWorkspaces(projectId, id, before);
  }

  /** Makes a workspace the template's default (its inventory), attaching it first if needed. */
  async setDefaultWorkspace(actor: Actor, projectId: number, id: number, inventoryId: number): Promise<void> {
    const template = await this.get(projectId, id);
    await this.attachWorkspace(actor, projectId, id, inventoryId);
    const inv = await this.workspaceFor(projectId, template.app, inventoryId);
    // The default workspace is the template's one inventory (workspaces are not passed as a list).
    await this.repo.update(projectId, id, { inventory_id: inventoryId, inventory_ids: JSON.stringify([inventoryId]) });
    await this.log(actor, projectId, id, `Workspace ${inv.name} is now the default of template ${template.name}`);
    // The attach above recorded the list; this entry is the default alone (none when it was already).
    await this.audit.record({
      action: 'update',
      objectType: 'template',
      objectId: id,
      projectId,
      before: { inventory_id: template.inventory_id },
      after: { inventory_id: inventoryId },
    });
  }

  /** The ids of the workspaces attached to a template, in id order (what an audit entry compares). */
  private async workspaceIds(projectId: number, id: number): Promise<number[]> {
    return (await this.links.inventories.list(projectId, { template_id: String(id) }))
      .map((i) => i.id)
      .sort((a, b) => a - b);
  }

  /** One entry for a change of a template's workspace list: the ids before and after. */
  private async recordWorkspaces(projectId: number, id: number, before: number[]): Promise<void> {
    const after = await this.workspaceIds(projectId, id);
    await this.audit.record({
      action: 'update',
      objectType: 'template',
      objectId: id,
      projectId,
      before: { inventory_ids: before },
      after: { inventory_ids: after },
    });
  }

  /** A workspace inventory of this project usable by `app`; anything else is a bad request. */
  private async workspaceFor(projectId: number, app: string, inventoryId: number) {
    const inv = await this.links.inventories.get(projectId, inventoryId).catch(() => {
      throw new ValidationError('Inventory not found in this project', {
        code: ErrorCodes.notInProject,
        label_key: 'inventory',
      });
    });
    if (!this.links.inventories.isWorkspaceFor(app, inv.type))
      throw new ValidationError(`Not a workspace of a ${app} template`, { code: ErrorCodes.notAWorkspaceForApp, app });
    return inv;
  }

  async refs(projectId: number, id: number): Promise<References> {
    await this.get(projectId, id);
    return this.refsRepo.forTemplate(projectId, id);
  }

  /** Every id a template points at must be this project's; vault passwords are login keys. */
  private async checkLinks(
    projectId: number,
    t: TemplateInput,
    selfId: number | null,
    lists: TemplateLists,
  ): Promise<void> {
    await this.checkApprovalPolicy(projectId, t);
    if (!(await this.links.appExists(t.app)))
      throw new ValidationError('App not found', { code: ErrorCodes.appNotFound, field: 'app' });
    await this.links.repositories.assertInProject(projectId, t.repository_id, 'repository_id');
    await checkListLinks(projectId, t, lists, this.links);
    if (t.view_id && !(await this.links.viewExists(projectId, t.view_id)))
      throw new ValidationError('View not found in this project', {
        code: ErrorCodes.notInProject,
        label_key: 'view',
        field: 'view_id',
      });
    if (t.build_template_id) {
      const field = 'build_template_id';
      if (t.build_template_id === selfId)
        throw new ValidationError('A template cannot deploy its own builds', {
          code: ErrorCodes.templateDeploysItself,
          field,
        });
      const build = await this.repo.find(projectId, t.build_template_id);
      if (!build || build.type !== 'build')
        throw new ValidationError('Build template not found in this project', {
          code: ErrorCodes.notInProject,
          label_key: 'build_template',
          field,
        });
    }
    for (const [i, v] of t.vaults.entries()) {
      if (v.type === 'password' && v.vault_key_id) {
        const field = `vaults.${i}.vault_key_id`;
        const type = await this.links.keys.typeInProject(projectId, v.vault_key_id, 'Vault password', field);
        if (type !== 'login_password')
          throw new ValidationError('A vault password must be a login with password key', {
            code: ErrorCodes.keyMustBeLoginPassword,
            label_key: 'vault_password',
            field,
          });
      }
    }
  }

  /** A policy names someone who can approve, and each user it names is a member of the project. */
  private async checkApprovalPolicy(projectId: number, t: TemplateInput): Promise<void> {
    const a = t.approval_policy?.approvers;
    if (!a) return;
    if (a.users.length + a.roles.length + a.groups.length === 0)
      throw new ValidationError('An approval policy needs at least one approver: a user, a role or a group', {
        code: ErrorCodes.approvalApproversRequired,
        field: 'approval_policy.approvers',
      });
    for (const [i, userId] of a.users.entries()) {
      if (this.links.isMember && !(await this.links.isMember(projectId, userId)))
        throw new ValidationError(`Approver ${userId} is not a member of this project`, {
          code: ErrorCodes.approverNotMember,
          user: userId,
          field: `approval_policy.approvers.users.${i}`,
        });
    }
  }

  private values(t: TemplateInput, lists: TemplateLists): TemplateValues {
    const [environmentId] = lists.environment_ids;
    // The schema requires a group or a list of them; this only narrows the type.
    if (!environmentId)
      throw new ValidationError('Variable group is required', {
        code: ErrorCodes.fieldRequired,
        label_key: 'variable_group',
        field: 'environment_id',
      });
    return {
      name: t.name,
      description: t.description,
      type: t.type,
      app: t.app,
      playbook: t.playbook,
      inventory_id: lists.inventory_ids[0] ?? null,
      repository_id: t.repository_id,
      environment_id: environmentId,
      environment_ids: JSON.stringify(lists.environment_ids),
      inventory_ids: JSON.stringify(lists.inventory_ids),
      view_id: t.view_id ?? null,
      git_branch: t.git_branch || null,
      runner_tag: t.runner_tag || null,
      start_version: t.type === 'build' ? (t.start_version ?? null) : null,
      build_template_id: t.type === 'deploy' ? (t.build_template_id ?? null) : null,
      autorun: t.type === 'deploy' && t.autorun ? 1 : 0,
      arguments: t.arguments || null,
      allow_override_args_in_task: +t.allow_override_args_in_task,
      allow_override_branch_in_task: +t.allow_override_branch_in_task,
      allow_extra_vars_in_task: +t.allow_extra_vars_in_task,
      suppress_success_alerts: +t.suppress_success_alerts,
      survey_vars: JSON.stringify(t.survey_vars),
      task_params: JSON.stringify(t.task_params),
      approval_policy: t.approval_policy ? JSON.stringify(t.approval_policy) : null,
    };
  }

  private vaults(t: TemplateInput) {
    return t.vaults.map((v) => ({
      name: v.name,
      type: v.type,
      vault_key_id: v.type === 'password' ? (v.vault_key_id ?? null) : null,
      script: v.type === 'script' ? (v.script ?? null) : null,
    }));
  }

  private log(actor: Actor, projectId: number, id: number, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'template', objectId: id, description });
  }
}
