import { cannotDeleteMessage, ErrorCodes, type FieldLabelKey, type References, type SurveyVar, type WorkflowGraph, type WorkflowInput, type WorkflowNode } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Actor, ProjectResourceService } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import { typedSurveyAnswers } from '../tasks/survey-answers.js';
import { graphOf } from './workflows.presenter.js';
import type { WorkflowRow, WorkflowsRepository } from './workflows.repository.js';

/** What a template node may change of its template, as the template says. */
export interface NodeTemplate {
  allowBranch: boolean;
  allowLimit: boolean;
  allowInventory: boolean;
  /** The inventories and branches a task may choose (empty: any), as a task's run-time choices. */
  inventoryChoices: readonly number[];
  branchChoices: readonly string[];
  allowExtraVars: boolean;
  /** Names of its survey variables (answers to these are always allowed). */
  surveyNames: readonly string[];
  /** Its survey variables, whose rules a node's answers must meet. */
  surveyVars: SurveyVar[];
}

/** What the workflows module asks of the others (composition root wires them). */
export interface WorkflowLinks {
  template(projectId: number, id: number): Promise<NodeTemplate | null>;
  inventoryExists(projectId: number, id: number): Promise<boolean>;
  variableGroupExists(projectId: number, id: number): Promise<boolean>;
  isMember(projectId: number, userId: number): Promise<boolean>;
  /** The schedules and integrations that start a workflow. */
  references(projectId: number, id: number): Promise<References>;
}

/**
 * A project's workflows: graphs of template, approval and nested-workflow nodes. The shape of the
 * graph is checked by the contracts schema; here what it refers to: templates, inventories,
 * variable groups, approvers and nested workflows of this project, overrides its templates allow,
 * and no chain of nested workflows that runs itself.
 */
export class WorkflowsService implements ProjectResourceService<WorkflowRow, WorkflowInput, WorkflowInput> {
  constructor(
    private readonly repo: WorkflowsRepository,
    private readonly links: WorkflowLinks,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  list(projectId: number): Promise<WorkflowRow[]> {
    return this.repo.list(projectId);
  }

  async get(projectId: number, id: number): Promise<WorkflowRow> {
    const row = await this.repo.find(projectId, id);
    if (!row) throw new NotFoundError('Workflow not found', { code: ErrorCodes.workflowNotFound });
    return row;
  }

  async create(actor: Actor, projectId: number, input: WorkflowInput): Promise<WorkflowRow> {
    await this.checkLinks(projectId, input, null);
    const now = this.clock.now().toISOString();
    const row = await this.repo.insert({ project_id: projectId, name: input.name, description: input.description, graph: graphText(input), created: now, updated: now });
    await this.log(actor, projectId, row.id, `Workflow ${row.name} created`);
    return row;
  }

  async update(actor: Actor, projectId: number, id: number, input: WorkflowInput): Promise<void> {
    await this.get(projectId, id);
    await this.checkLinks(projectId, input, id);
    await this.repo.update(projectId, id, { name: input.name, description: input.description, graph: graphText(input), updated: this.clock.now().toISOString() });
    await this.log(actor, projectId, id, `Workflow ${input.name} updated`);
  }

  async delete(actor: Actor, projectId: number, id: number): Promise<void> {
    const row = await this.get(projectId, id);
    const user = (await this.repo.list(projectId)).find((w) => w.id !== id && graphOf(w).nodes.some((n) => n.type === 'workflow' && n.workflow_id === id));
    if (user)
      throw new ConflictError(`Workflow ${user.name} runs this workflow: change it first`, { code: ErrorCodes.workflowInUse, name: user.name });
    // Its own schedules go with it (as a template's do); an integration is a URL others call: it changes first.
    const refs = await this.links.references(projectId, id);
    if (refs.integrations.length > 0)
      throw new ConflictError(cannotDeleteMessage('workflow'), { code: ErrorCodes.workflowHasIntegrations, references: refs });
    await this.repo.delete(projectId, id);
    await this.log(actor, projectId, id, `Workflow ${row.name} deleted`);
  }

  async refs(projectId: number, id: number): Promise<References> {
    await this.get(projectId, id);
    return this.links.references(projectId, id);
  }

  /** Every id a node names belongs to this project, and every override is one its template allows. */
  private async checkLinks(projectId: number, input: WorkflowInput, selfId: number | null): Promise<void> {
    for (const [i, node] of input.nodes.entries()) {
      const at = (field: string) => `nodes.${i}.${field}`;
      const missing = (label: FieldLabelKey, field: string, what: string) =>
        new ValidationError(`Node "${node.id}": ${what} not found in this project`, { code: ErrorCodes.workflowNodeNotInProject, node: node.id, label_key: label, field: at(field) });
      if (node.type === 'template' && node.template_id) {
        const template = await this.links.template(projectId, node.template_id);
        if (!template) throw missing('template', 'template_id', 'template');
        this.checkOverrides(node, template, at);
        await this.checkAnswers(node, template, at);
      }
      if (node.type === 'workflow' && node.workflow_id) {
        if (node.workflow_id === selfId || !(await this.repo.find(projectId, node.workflow_id)))
          throw node.workflow_id === selfId ? this.nestedCycle(node, at) : missing('workflow', 'workflow_id', 'workflow');
      }
      const p = node.params;
      if (p?.inventory_id && !(await this.links.inventoryExists(projectId, p.inventory_id))) throw missing('inventory', 'params.inventory_id', 'inventory');
      if (p?.environment_id && !(await this.links.variableGroupExists(projectId, p.environment_id)))
        throw missing('variable_group', 'params.environment_id', 'variable group');
      for (const [j, userId] of (node.approvers?.users ?? []).entries())
        if (!(await this.links.isMember(projectId, userId))) throw missing('user', `approvers.users.${j}`, 'approver');
    }
    if (selfId !== null) await this.checkNesting(projectId, input, selfId);
  }

  private checkOverrides(node: WorkflowNode, t: NodeTemplate, at: (field: string) => string): void {
    const p = node.params;
    if (!p) return;
    const refuse = (label: FieldLabelKey, field: string) =>
      new ValidationError(`Node "${node.id}": its template does not allow a task to change ${label.replace('_', ' ')}`, {
        code: ErrorCodes.workflowOverrideNotAllowed,
        node: node.id,
        label_key: label,
        field: at(`params.${field}`),
      });
    if (p.git_branch && !t.allowBranch) throw refuse('branch', 'git_branch');
    if (p.limit && !t.allowLimit) throw refuse('limit', 'limit');
    if (p.inventory_id && !t.allowInventory) throw refuse('inventory', 'inventory_id');
    // A node is a task of its template: the same run-time choices apply, refused on save rather than at run.
    const notOffered = (label: FieldLabelKey, field: string) =>
      new ValidationError(`Node "${node.id}": its ${label} is not one of the template's run-time choices`, {
        code: ErrorCodes.runChoiceNotOffered,
        node: node.id,
        label_key: label,
        field: at(`params.${field}`),
      });
    if (p.inventory_id && t.inventoryChoices.length && !t.inventoryChoices.includes(p.inventory_id))
      throw notOffered('inventory', 'inventory_id');
    if (p.git_branch && t.branchChoices.length && !t.branchChoices.includes(p.git_branch))
      throw notOffered('branch', 'git_branch');
    const extra = Object.keys(p.environment ?? {}).filter((k) => !t.surveyNames.includes(k));
    if (extra.length > 0 && !t.allowExtraVars) throw refuse('extra_variables', 'environment');
  }

  /**
   * A node's answers meet their parameters' types and rules (the check a task start makes), so a
   * wrong one is refused on save, naming the node, rather than when the node runs. Partial, as an
   * integration's answers: a run started by an integration may bring the required ones.
   */
  private async checkAnswers(node: WorkflowNode, t: NodeTemplate, at: (field: string) => string): Promise<void> {
    const answers = node.params?.environment;
    if (!answers) return;
    try {
      await typedSurveyAnswers(t.surveyVars, answers, {}, { partial: true });
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      throw new ValidationError(`Node "${node.id}": ${e.message}`, {
        ...e.details,
        node: node.id,
        field: at(`params.${e.details.field ?? 'environment'}`),
      });
    }
  }

  /**
   * A saved workflow may be nested in others: the chain of workflows this one runs must not come
   * back to it (following the stored graphs of the project's other workflows).
   */
  private async checkNesting(projectId: number, input: WorkflowInput, selfId: number): Promise<void> {
    const graphs = new Map<number, WorkflowGraph>((await this.repo.list(projectId)).map((w) => [w.id, graphOf(w)]));
    graphs.set(selfId, input);
    const nested = (id: number) => (graphs.get(id)?.nodes ?? []).flatMap((n) => (n.type === 'workflow' && n.workflow_id ? [n.workflow_id] : []));
    for (const [i, node] of input.nodes.entries()) {
      if (node.type !== 'workflow' || !node.workflow_id) continue;
      const seen = new Set<number>();
      const todo = [node.workflow_id];
      while (todo.length) {
        const id = todo.pop()!;
        if (id === selfId) throw this.nestedCycle(node, (f) => `nodes.${i}.${f}`);
        if (seen.has(id)) continue;
        seen.add(id);
        todo.push(...nested(id));
      }
    }
  }

  private nestedCycle(node: WorkflowNode, at: (field: string) => string): ValidationError {
    return new ValidationError(`Node "${node.id}" runs a workflow that runs this one: nested workflows must be able to end`, {
      code: ErrorCodes.workflowNestedCycle,
      node: node.id,
      field: at('workflow_id'),
    });
  }

  private log(actor: Actor, projectId: number, id: number, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'workflow', objectId: id, description });
  }
}

function graphText(input: WorkflowInput): string {
  const graph: WorkflowGraph = { nodes: input.nodes, edges: input.edges, joins: input.joins };
  return JSON.stringify(graph);
}
