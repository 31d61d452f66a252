import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import type { CheckoutCache } from '../engine/checkout-cache.js';
import { taskWorkspaceStore } from '../engine/workspace.js';
import type { AppsService } from '../modules/apps/apps.service.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import { BackupService } from '../modules/backup/backup.service.js';
import { restoreUnit } from '../modules/backup/backup.transaction.js';
import { ProjectCacheRepository } from '../modules/backup/project-cache.repository.js';
import { ProjectCacheService } from '../modules/backup/project-cache.service.js';
import type { Clock } from '../platform/clock.js';
import { createResourceServices, type ResourceServices, type ResourceServicesDeps } from '../resource-services.js';

export interface BackupDeps {
  config: Config;
  db: Db;
  clock: Clock;
  /** The server's project-resource services: a backup reads through them. */
  resources: ResourceServices;
  /** What they were built with: a restore builds its own on its transaction. */
  resourceDeps: Omit<ResourceServicesDeps, 'appExists'>;
  apps: AppsService;
  checkoutCache: CheckoutCache | undefined;
  audit: AuditService;
}

/** Project backup and restore, and the clearing of a project's caches (checkouts, task workspaces). */
export function createBackup({ config, db, clock, resources, resourceDeps, apps, checkoutCache, audit }: BackupDeps): {
  backup: BackupService;
  projectCache: ProjectCacheService;
} {
  const backup = new BackupService(
    // The project's resource services (BackupService takes the ones it backs up and restores).
    resources,
    restoreUnit(db.db, (trx, appExists) =>
      createResourceServices(trx, { ...resourceDeps, appExists: async (id) => appExists(id) }),
    ),
    (id) => apps.exists(id),
    clock,
  );
  const projectCache = new ProjectCacheService(
    new ProjectCacheRepository(db.db),
    taskWorkspaceStore(config.taskDir),
    resources.events,
    checkoutCache,
  );
  backup.audit = audit;
  projectCache.audit = audit;
  resources.projects.onDeleted = (id) => projectCache.forgetProject(id);
  return { backup, projectCache };
}
