import type { Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import type { EventsService } from '../modules/events/events.service.js';
import type { ProjectsService } from '../modules/projects/projects.service.js';
import type { TasksService } from '../modules/tasks/tasks.service.js';
import type { TemplatesService } from '../modules/templates/templates.service.js';
import type { UsersService } from '../modules/users/users.service.js';
import { createWorkflowRuns } from '../modules/workflow-runs/create-workflow-runs.js';
import type { WorkflowDriver } from '../modules/workflow-runs/workflow-driver.js';
import type { WorkflowRunsService } from '../modules/workflow-runs/workflow-runs.service.js';
import type { WorkflowsService } from '../modules/workflows/workflows.service.js';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../realtime/bus.js';

export interface WorkflowRunsWiringDeps {
  config: Config;
  db: Db;
  clock: Clock;
  node: string;
  bus: EventBus;
  events: EventsService;
  users: UsersService;
  projects: ProjectsService;
  workflows: WorkflowsService;
  templates: TemplatesService;
  tasks: TasksService;
  audit: AuditService;
}

/** Workflow runs and this node's driver of them; templates learn which workflows name them. */
export function wireWorkflowRuns({
  config,
  db,
  clock,
  node,
  bus,
  events,
  users,
  projects,
  workflows,
  templates,
  tasks,
  audit,
}: WorkflowRunsWiringDeps): { workflowRuns: WorkflowRunsService; workflowDriver: WorkflowDriver } {
  // Workflow runs: their nodes' tasks are started as the run's user (with their project role), as a console start would.
  const {
    service: workflowRuns,
    driver: workflowDriver,
    repo: workflowRunsRepo,
  } = createWorkflowRuns({
    db: db.db,
    workflows,
    tasks,
    events,
    bus,
    clock,
    nodeId: node,
    actorFor: async (projectId, userId) => {
      if (userId === null) return null;
      const user = await users.findById(userId);
      return user
        ? { id: user.id, admin: user.admin === 1, role: (await projects.membership(projectId, userId)).role }
        : null;
    },
    log: (line) => void (config.logLevel !== 'silent' && process.stderr.write(`${line}\n`)),
  });
  workflowRuns.audit = audit;
  templates.usedByWorkflow = (projectId, id) => workflowRunsRepo.workflowNamingTemplate(projectId, id);
  return { workflowRuns, workflowDriver };
}
