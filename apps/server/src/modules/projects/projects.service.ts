import {
  Messages,
  projectRoleSchema,
  type ProjectRole,
  type projectCreateSchema,
  type projectUpdateSchema,
  ErrorCodes,
} from '@gantry/contracts';
import type { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import { ForbiddenError, NotFoundError } from '../../platform/errors.js';
import type { ProjectMembership } from '../../platform/permissions.js';
import type { EventsService } from '../events/events.service.js';
import type { ProjectRow, ProjectsRepository, ProjectWithRole } from './projects.repository.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';

/** What the audit trail records of a project. */
const audited = (r: ProjectRow) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  alert: r.alert === 1,
  alert_chat: r.alert_chat,
  max_parallel_tasks: r.max_parallel_tasks,
  managed_by_code: r.managed_by_code === 1,
});

type CreateInput = z.output<typeof projectCreateSchema>;
type UpdateInput = z.output<typeof projectUpdateSchema>;

export class ProjectsService implements ProjectMembership {
  constructor(
    private readonly repo: ProjectsRepository,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly nonAdminCanCreateProject: boolean,
    /** Fills a project created with `demo: true` (wired after the other services exist). */
    public seedDemo: (actor: { id: number; admin: boolean }, projectId: number) => Promise<void> = async () =>
      undefined,
  ) {}

  /** Told after a project is deleted, to remove what this node keeps for it on disk (wired in wiring/backup.ts). */
  onDeleted: (projectId: number) => Promise<void> = async () => undefined;

  /** Where project changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  list(user: { id: number; admin: boolean }): Promise<ProjectWithRole[]> {
    return this.repo.listFor(user.id, user.admin);
  }

  /** Admins may create projects; others only when GANTRY_NON_ADMIN_CAN_CREATE_PROJECT is set. */
  assertCanCreate(user: { admin: boolean }): void {
    if (!user.admin && !this.nonAdminCanCreateProject)
      throw new ForbiddenError('You cannot create projects', { code: ErrorCodes.projectCreateForbidden });
  }

  async create(user: { id: number; admin: boolean }, input: CreateInput): Promise<ProjectRow> {
    this.assertCanCreate(user);
    const row = await this.repo.insertWithOwner(
      {
        name: input.name,
        type: input.type,
        alert: input.alert,
        alert_chat: input.alert_chat,
        max_parallel_tasks: input.max_parallel_tasks,
      },
      user.id,
      this.clock.now().toISOString(),
    );
    await this.events.record({
      projectId: row.id,
      userId: user.id,
      objectType: 'project',
      objectId: row.id,
      description: `Project ${row.name} created`,
    });
    await this.audit.record({
      action: 'create',
      objectType: 'project',
      objectId: row.id,
      projectId: row.id,
      after: audited(row),
    });
    if (input.demo) await this.seedDemo(user, row.id);
    return row;
  }

  async get(id: number): Promise<ProjectRow> {
    const row = await this.repo.findById(id);
    if (!row) throw new NotFoundError(Messages.projectNotFound, { code: ErrorCodes.projectNotFound });
    return row;
  }

  async update(actorId: number, id: number, input: UpdateInput): Promise<ProjectRow> {
    const before = await this.repo.findById(id);
    await this.repo.update(id, {
      name: input.name,
      alert: input.alert,
      alert_chat: input.alert_chat,
      max_parallel_tasks: input.max_parallel_tasks,
      managed_by_code: input.managed_by_code,
    });
    await this.events.record({
      projectId: id,
      userId: actorId,
      objectType: 'project',
      objectId: id,
      description: `Project ${input.name} updated`,
    });
    const after = await this.get(id);
    await this.audit.record({
      action: 'update',
      objectType: 'project',
      objectId: id,
      projectId: id,
      before: before ? audited(before) : null,
      after: audited(after),
    });
    return after;
  }

  async delete(id: number): Promise<void> {
    const before = await this.repo.findById(id);
    await this.repo.delete(id);
    await this.onDeleted(id).catch(() => undefined);
    if (before)
      await this.audit.record({
        action: 'delete',
        objectType: 'project',
        objectId: id,
        projectId: id,
        before: audited(before),
      });
  }

  /** For the permission check: does the project exist, and what role does the user hold in it. */
  async membership(projectId: number, userId: number): Promise<{ exists: boolean; role: ProjectRole | null }> {
    const project = await this.repo.membershipOf(projectId, userId);
    if (!project) return { exists: false, role: null };
    const role = projectRoleSchema.safeParse(project.role);
    return { exists: true, role: role.success ? role.data : null };
  }
}
