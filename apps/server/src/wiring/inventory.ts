import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import { InventoryLister } from '../engine/inventory-list.js';
import type { ProcessLauncher } from '../engine/process.js';
import type { TaskSandbox } from '../engine/sandbox.js';
import type { EnvironmentsService } from '../modules/environments/environments.service.js';
import { HostsRepository } from '../modules/hosts/hosts.repository.js';
import { HostsService } from '../modules/hosts/hosts.service.js';
import type { InventoriesService } from '../modules/inventories/inventories.service.js';
import { InventoryListingService } from '../modules/inventories/inventory-listing.js';
import type { KeysService } from '../modules/keys/keys.service.js';
import type { RepositoriesService } from '../modules/repositories/repositories.service.js';
import { SurveyOptionsService } from '../modules/survey-options/survey-options.service.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import { presentTemplate } from '../modules/templates/templates.presenter.js';
import type { TemplatesService } from '../modules/templates/templates.service.js';
import type { Clock } from '../platform/clock.js';
import type { LocalPathPolicy } from '../platform/local-paths.js';
import { safeFetch } from '../platform/safe-fetch.js';

export interface InventoryServicesDeps {
  config: Config;
  db: Db;
  clock: Clock;
  launcher: ProcessLauncher;
  sandbox: TaskSandbox;
  localPaths: LocalPathPolicy;
  inventories: InventoriesService;
  repositories: RepositoriesService;
  templates: TemplatesService;
  keys: KeysService;
  environments: EnvironmentsService;
  tasks: TasksService;
}

export interface InventoryServices {
  inventoryListing: InventoryListingService;
  surveyOptions: SurveyOptionsService;
  hosts: HostsService;
}

/**
 * What is read out of inventories: their hosts and groups, the choice parameters' options that
 * come from them (checked again when a task starts), and the hosts view.
 */
export function createInventoryServices({
  config,
  db,
  clock,
  launcher,
  sandbox,
  localPaths,
  inventories,
  repositories,
  templates,
  keys,
  environments,
  tasks,
}: InventoryServicesDeps): InventoryServices {
  const inventoryListing = new InventoryListingService({
    inventories,
    repositories,
    templates,
    keys,
    localPaths,
    lister: new InventoryLister({
      launcher,
      workRoot: config.taskDir,
      knownHostsDir: path.join(config.dataDir, 'known_hosts'),
      systemPath: config.systemPath,
      taskOwner: sandbox.taskOwner,
    }),
    allowedHosts: config.fetchAllowedHosts,
  });
  // Dynamic options of choice parameters: the run dialog reads them, a task start checks its answers against them.
  const surveyOptions = new SurveyOptionsService({
    template: async (projectId, id) => presentTemplate(await templates.getForTask(projectId, id)),
    inventoryExists: (projectId, id) =>
      inventories.get(projectId, id).then(
        () => true,
        () => false,
      ),
    listInventory: (projectId, id, templateId) => inventoryListing.list(projectId, id, templateId),
    fetch: (url, opts) => safeFetch(url, { ...opts, allowedHosts: config.fetchAllowedHosts }),
    clock,
  });
  tasks.checkDynamicOption = (projectId, template, inventoryId) =>
    surveyOptions.checker(projectId, template, inventoryId);
  const hosts = new HostsService({
    repo: new HostsRepository(db.db),
    inventories,
    listing: inventoryListing,
    clock,
    projectSecrets: async (projectId) => {
      const [groups, keyList] = await Promise.all([environments.list(projectId), keys.list(projectId)]);
      const values = await Promise.all([
        ...groups.map(async (g) => (await environments.secretValues(projectId, g.id)).map((v) => v.value)),
        ...keyList.map(async (k) => {
          const secret = await keys.secretOf(projectId, k.id);
          if (secret?.type === 'login_password') return [secret.password];
          return secret?.type === 'ssh' ? [secret.passphrase] : [];
        }),
      ]);
      return values.flat().filter(Boolean);
    },
  });
  return { inventoryListing, surveyOptions, hosts };
}
