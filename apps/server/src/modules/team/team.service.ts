import { ErrorCodes } from '@gantry/contracts';
import type { ProjectRole, TeamSort } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { ProjectAccess } from '../../platform/permissions.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { EventsService } from '../events/events.service.js';
import type { UsersService } from '../users/users.service.js';
import type { EventBus } from '../../realtime/bus.js';
import type { MemberRow, TeamRepository } from './team.repository.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';

const LAST_OWNER = 'The project must keep at least one owner';

/**
 * Project membership. Only an owner (or an admin) may grant the owner role or change an owner;
 * the last owner can be neither removed nor demoted.
 */
export class TeamService {
  constructor(
    private readonly repo: TeamRepository,
    private readonly users: UsersService,
    private readonly events: EventsService,
    private readonly clock: Clock,
    /** Told of every membership change, so the member's open sockets see only what they may. */
    private readonly bus: Pick<EventBus, 'userChanged'>,
  ) {}

  /** Where membership changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  list(projectId: number, sort: TeamSort, order: 'asc' | 'desc'): Promise<MemberRow[]> {
    return this.repo.list(projectId, sort, order);
  }

  async add(actor: Actor, access: ProjectAccess, userId: number, role: ProjectRole): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw new ValidationError('User not found', { code: ErrorCodes.userNotFound, field: 'user_id' });
    if (await this.repo.find(access.projectId, userId)) throw new ConflictError('The user is already a member', { code: ErrorCodes.alreadyMember });
    this.assertMayTouchOwners(actor, access, role);
    await this.repo.insert(access.projectId, userId, role, this.clock.now().toISOString());
    this.bus.userChanged(userId);
    await this.log(actor, access.projectId, userId, `User ${user.username} joined the project as ${role}`);
    await this.audit.record({ action: 'create', objectType: 'team_member', objectId: userId, projectId: access.projectId, after: { user_id: userId, username: user.username, role } });
  }

  async changeRole(actor: Actor, access: ProjectAccess, userId: number, role: ProjectRole): Promise<void> {
    const member = await this.member(access.projectId, userId);
    if (member.role === role) return;
    if (member.role === 'owner' || role === 'owner') this.assertMayTouchOwners(actor, access, 'owner');
    if (member.role === 'owner' && (await this.repo.countOwners(access.projectId)) <= 1) throw new ConflictError(LAST_OWNER, { code: ErrorCodes.lastOwner });
    await this.repo.setRole(access.projectId, userId, role);
    this.bus.userChanged(userId);
    await this.log(actor, access.projectId, userId, `Role of ${member.username} changed to ${role}`);
    await this.audit.record({ action: 'update', objectType: 'team_member', objectId: userId, projectId: access.projectId, before: { role: member.role }, after: { role } });
  }

  async remove(actor: Actor, access: ProjectAccess, userId: number): Promise<void> {
    const member = await this.member(access.projectId, userId);
    if (member.role === 'owner') {
      this.assertMayTouchOwners(actor, access, 'owner');
      if ((await this.repo.countOwners(access.projectId)) <= 1) throw new ConflictError(LAST_OWNER, { code: ErrorCodes.lastOwner });
    }
    await this.repo.delete(access.projectId, userId);
    this.bus.userChanged(userId);
    await this.log(actor, access.projectId, userId, `User ${member.username} removed from the project`);
    await this.audit.record({ action: 'delete', objectType: 'team_member', objectId: userId, projectId: access.projectId, before: { user_id: userId, username: member.username, role: member.role } });
  }

  /** DELETE /project/{id}/me: any member may leave, except the last owner. */
  async leave(actor: Actor, projectId: number): Promise<void> {
    const member = await this.repo.find(projectId, actor.id);
    if (!member) throw new NotFoundError('You are not a member of this project', { code: ErrorCodes.notAMember });
    if (member.role === 'owner' && (await this.repo.countOwners(projectId)) <= 1) throw new ConflictError(LAST_OWNER, { code: ErrorCodes.lastOwner });
    await this.repo.delete(projectId, actor.id);
    await this.audit.record({ action: 'delete', objectType: 'team_member', objectId: actor.id, projectId, before: { user_id: actor.id, username: member.username, role: member.role } });
    this.bus.userChanged(actor.id);
    await this.log(actor, projectId, actor.id, `User ${member.username} left the project`);
  }

  private async member(projectId: number, userId: number): Promise<MemberRow> {
    const m = await this.repo.find(projectId, userId);
    if (!m) throw new NotFoundError('Member not found', { code: ErrorCodes.memberNotFound });
    return m;
  }

  private assertMayTouchOwners(actor: Actor, access: ProjectAccess, role: ProjectRole): void {
    if (role === 'owner' && !actor.admin && access.role !== 'owner') {
      throw new ForbiddenError('Only an owner can grant or change the owner role', { code: ErrorCodes.ownerRoleForbidden });
    }
  }

  private log(actor: Actor, projectId: number, userId: number, description: string): Promise<void> {
    return this.events.record({ projectId, userId: actor.id, objectType: 'user', objectId: userId, description });
  }
}
