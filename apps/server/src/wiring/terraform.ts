import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import { TerraformStateStore } from '../engine/terraform-state.js';
import type { EventsService } from '../modules/events/events.service.js';
import type { InventoriesService } from '../modules/inventories/inventories.service.js';
import type { KeysService } from '../modules/keys/keys.service.js';
import type { NotificationsService } from '../modules/notifications/notifications.service.js';
import type { TasksRepository } from '../modules/tasks/tasks.repository.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import type { TemplatesService } from '../modules/templates/templates.service.js';
import { TerraformAliasesService } from '../modules/terraform-backend/terraform-aliases.service.js';
import { TerraformBackendRepository } from '../modules/terraform-backend/terraform-backend.repository.js';
import {
  TerraformBackendService,
  type FailureThrottle,
} from '../modules/terraform-backend/terraform-backend.service.js';
import { driftWorkspace } from '../modules/terraform-plans/drift-workspace.js';
import { TerraformPlansRepository } from '../modules/terraform-plans/terraform-plans.repository.js';
import { TERRAFORM_APPS, TerraformPlansService } from '../modules/terraform-plans/terraform-plans.service.js';
import { TerraformStatesRepository } from '../modules/terraform-states/terraform-states.repository.js';
import { TerraformStatesService } from '../modules/terraform-states/terraform-states.service.js';
import type { Clock } from '../platform/clock.js';
import type { SecretBox } from '../platform/crypto.js';
import { SelfUrl } from '../platform/self-url.js';

export interface TerraformStoresDeps {
  config: Config;
  db: Db;
  box: SecretBox;
  clock: Clock;
  inventories: InventoriesService;
  keys: KeysService;
  events: EventsService;
  /** The sign-in throttle: the state backend's HTTP credentials are slowed and refused as sign-ins are. */
  throttle: FailureThrottle;
}

export interface TerraformStores {
  terraformState: TerraformStateStore;
  terraformStates: TerraformStatesService;
  terraformBackend: TerraformBackendService;
  terraformAliases: TerraformAliasesService;
  selfUrl: SelfUrl;
}

/** Where Terraform/OpenTofu state lives: kept between runs, versioned per workspace, served by the HTTP backend. */
export function createTerraformStores({
  config,
  db,
  box,
  clock,
  inventories,
  keys,
  events,
  throttle,
}: TerraformStoresDeps): TerraformStores {
  // The local state kept between runs is sealed with the master key, as state versions are
  // (base64 inside: SecretBox seals text, a state file is bytes and comes back exactly).
  const terraformState = new TerraformStateStore(path.join(config.dataDir, 'terraform'), config.maxStateBytes, {
    sealer: {
      seal: (plain) => Buffer.from(box.seal(plain.toString('base64')), 'utf8'),
      open: (sealed) => Buffer.from(box.open(sealed.toString('utf8')), 'base64'),
    },
  });
  const terraformStates = new TerraformStatesService(
    new TerraformStatesRepository(db.db),
    inventories,
    box,
    clock,
    events,
  );
  // Gantry's Terraform HTTP state backend; this node's tasks reach it at its own address.
  const terraformBackendRepo = new TerraformBackendRepository(db.db);
  const terraformBackend = new TerraformBackendService({
    repo: terraformBackendRepo,
    states: terraformStates,
    keys,
    box,
    clock,
    throttle,
  });
  const terraformAliases = new TerraformAliasesService(terraformBackendRepo, inventories, keys, events, clock);
  const selfUrl = new SelfUrl(config.webHost);
  return { terraformState, terraformStates, terraformBackend, terraformAliases, selfUrl };
}

export interface TerraformPlansDeps {
  db: Db;
  clock: Clock;
  tasksRepo: TasksRepository;
  tasks: TasksService;
  inventories: InventoriesService;
  templates: TemplatesService;
  notifications: NotificationsService;
}

/**
 * Creates the plans service and sets the ports through which tasks, inventories, templates and
 * notifications reach it.
 */
export function wireTerraformPlans({
  db,
  clock,
  tasksRepo,
  tasks,
  inventories,
  templates,
  notifications,
}: TerraformPlansDeps): TerraformPlansService {
  // Terraform governance: plans and drift, reached by tasks, inventories, templates and notifications through ports.
  const terraformPlans = new TerraformPlansService(new TerraformPlansRepository(db.db), clock);
  tasks.checkParams = (template, params) => {
    if (params.drift_check) terraformPlans.checkDriftTemplate(template.app);
  };
  tasks.driftInventory = async (projectId, template, given) =>
    driftWorkspace(template, await inventories.get(projectId, given).catch(() => null), 'inventory_id');
  tasks.confirmGuard = (projectId, id, actor) =>
    actor
      ? terraformPlans.checkConfirm(projectId, id, { id: actor.id, admin: actor.admin, role: actor.role })
      : Promise.resolve();
  tasks.onConfirmed = (_projectId, id, actor) => terraformPlans.confirmed(id, actor?.id ?? null);
  tasks.taskExtras = async (projectId, id, app) =>
    TERRAFORM_APPS.includes(app) ? terraformPlans.taskExtras(projectId, id) : {};
  inventories.driftOf = (projectId, ids) => terraformPlans.driftOfInventories(projectId, ids);
  templates.driftOf = (projectId, ids) => terraformPlans.driftOfTemplates(projectId, ids);
  notifications.planOf = async (taskId) => {
    const task = await tasksRepo.findById(taskId);
    return task ? (await terraformPlans.taskExtras(task.project_id, taskId)).plan_summary : null;
  };
  return terraformPlans;
}
