import { ErrorCodes, LDAP_SOURCE, PROJECT_ROLES, type IdentityMappingInput, type ProjectRole } from '@gantry/contracts';
import type { Clock } from '../../platform/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { EventBus } from '../../realtime/bus.js';
import type { EventsService } from '../events/events.service.js';
import type { UsersService } from '../users/users.service.js';
import type { MappingRow, MappingsRepository } from './mappings.repository.js';
import { noAudit, type AuditRecorder } from '../audit/audit.port.js';
import { currentCaller, runAsCaller } from '../audit/audit-context.js';
import { presentMapping } from './mappings.presenter.js';

/** A source a rule may name: `ldap` and each configured OpenID Connect provider. */
export interface MappingSource {
  id: string;
  name: string;
}

/** What the rules of one source give a user with the groups they are in. */
interface Wanted {
  admin?: string;
  projects: Map<number, { role: ProjectRole; group: string }>;
}

/** The stronger of two roles: PROJECT_ROLES runs from the strongest (owner) to the weakest (guest). */
function stronger(a: ProjectRole, b: ProjectRole): boolean {
  return PROJECT_ROLES.indexOf(a) < PROJECT_ROLES.indexOf(b);
}

/** Directory group names compare without case (LDAP DNs do; providers' names rarely differ by case alone). */
const norm = (group: string) => group.trim().toLowerCase();

/** The system acts at sign-in: an admin actor that is nobody's own session. */
const DIRECTORY_ACTOR = { id: 0, admin: true };

/**
 * Group to role mapping. Admins keep rules; at every sign-in from a source the rules of that
 * source decide the user's admin flag and the memberships they made (added, role changed,
 * removed), while memberships made by hand and admin flags set by hand are left alone.
 */
export class MappingsService {
  constructor(
    private readonly repo: MappingsRepository,
    private readonly users: UsersService,
    private readonly events: EventsService,
    private readonly clock: Clock,
    /** Told of every membership change, so the member's open sockets see only what they may. */
    private readonly bus: Pick<EventBus, 'userChanged'>,
    private readonly sources: MappingSource[],
  ) {}

  /** The sources a rule may name: LDAP first, then the OpenID Connect providers in configuration order. */
  listSources(): MappingSource[] {
    return this.sources;
  }

  /** Where changes are recorded (the composition root wires the audit trail in). */
  audit: AuditRecorder = noAudit;

  list(): Promise<MappingRow[]> {
    return this.repo.list();
  }

  async create(input: IdentityMappingInput): Promise<MappingRow> {
    await this.check(input);
    const row = await this.repo.insert({ ...this.values(input), created: this.clock.now().toISOString() });
    await this.audit.record({ action: 'create', objectType: 'identity_mapping', objectId: row.id, after: presentMapping(row) });
    return row;
  }

  async update(id: number, input: IdentityMappingInput): Promise<MappingRow> {
    const row = await this.get(id);
    await this.check(input);
    await this.repo.update(id, this.values(input));
    const after = { ...row, ...this.values(input) };
    await this.audit.record({ action: 'update', objectType: 'identity_mapping', objectId: id, before: presentMapping(row), after: presentMapping(after) });
    return after;
  }

  async delete(id: number): Promise<MappingRow> {
    const row = await this.get(id);
    await this.repo.delete(id);
    await this.audit.record({ action: 'delete', objectType: 'identity_mapping', objectId: id, before: presentMapping(row) });
    return row;
  }

  /**
   * Applies the rules of `source` to a user who just signed in from it with these groups; call it
   * before the new session opens (taking the admin flag away signs the user out everywhere).
   * Without any rule for the source nothing changes. With rules: the admin flag and the
   * memberships this source's rules made follow the groups; a membership made by hand, or by
   * another source's rules, is never touched; of several rules for one project the strongest
   * role wins. A project's last owner is neither demoted nor removed (it stays until an admin acts).
   *
   * Each change is an audit entry of Gantry itself (`system`, no actor) that keeps the sign-in's
   * address and request id: an admin's rules decide, not the user signing in, so the trail must
   * not show that user granting themself a role or the admin flag. The flag's entry is the user
   * update UsersService records, made under the same caller.
   */
  async applyAtSignIn(userId: number, source: string, groups: string[]): Promise<void> {
    const caller = { ...currentCaller(), actorId: null, actorLogin: null, authKind: 'system' as const };
    await runAsCaller(caller, () => this.apply(userId, source, groups));
  }

  private async apply(userId: number, source: string, groups: string[]): Promise<void> {
    const rules = await this.repo.forSource(source);
    if (rules.length === 0) return;
    const user = await this.users.findById(userId);
    if (!user) return;
    const wanted = this.wanted(rules, groups);
    await this.applyAdmin(userId, source, wanted.admin);
    let changed = false;
    const log = (projectId: number, description: string) =>
      this.events.record({ projectId, userId, objectType: 'user', objectId: userId, description });
    // As the team's own entries (object: the member), with the source and group that decided.
    const member = (role: string, group: string | null) => ({ user_id: userId, username: user.username, role, source, group });
    type Fields = Record<string, unknown> | null;
    const audit = (action: 'create' | 'update' | 'delete', projectId: number, before: Fields, after: Fields) =>
      this.audit.record({ action, objectType: 'team_member', objectId: userId, projectId, before, after });
    const current = await this.repo.memberships(userId);
    for (const [projectId, want] of wanted.projects) {
      const has = current.find((m) => m.project_id === projectId);
      const from = `(mapped from ${source}: ${want.group})`;
      if (!has) {
        if (
          await this.repo.addMapped(projectId, userId, want.role, source, want.group, this.clock.now().toISOString())
        ) {
          changed = true;
          await audit('create', projectId, null, member(want.role, want.group));
          await log(projectId, `User ${user.username} joined the project as ${want.role} ${from}`);
        }
      } else if (has.mapped_source === source && (has.role !== want.role || has.mapped_group !== want.group)) {
        if (has.role === 'owner' && want.role !== 'owner' && (await this.repo.countOwners(projectId)) <= 1) continue;
        if (await this.repo.updateMapped(projectId, userId, source, want.role, want.group)) {
          changed ||= has.role !== want.role;
          await audit('update', projectId, { role: has.role, group: has.mapped_group }, { role: want.role, group: want.group });
          if (has.role !== want.role) await log(projectId, `Role of ${user.username} changed to ${want.role} ${from}`);
        }
      }
    }
    for (const m of current) {
      if (m.mapped_source !== source || wanted.projects.has(m.project_id)) continue;
      if (m.role === 'owner' && (await this.repo.countOwners(m.project_id)) <= 1) continue;
      if (await this.repo.removeMapped(m.project_id, userId, source)) {
        changed = true;
        await audit('delete', m.project_id, member(m.role, m.mapped_group), null);
        await log(
          m.project_id,
          `User ${user.username} removed from the project (no longer in a group mapped from ${source})`,
        );
      }
    }
    if (changed) this.bus.userChanged(userId);
  }

  private wanted(rules: MappingRow[], groups: string[]): Wanted {
    const member = new Set(groups.map(norm));
    const out: Wanted = { projects: new Map() };
    for (const rule of rules) {
      if (!member.has(norm(rule.group_name))) continue;
      if (rule.admin === 1) out.admin ??= rule.group_name;
      if (rule.project_id !== null && rule.role !== null) {
        const role = rule.role as ProjectRole;
        const had = out.projects.get(rule.project_id);
        if (!had || stronger(role, had.role)) out.projects.set(rule.project_id, { role, group: rule.group_name });
      }
    }
    return out;
  }

  /**
   * The admin flag follows the groups only where a rule of this source gave it: a user who was an
   * admin before any rule did stays one. Changes go through UsersService.update, so taking the flag
   * away revokes the user's sessions and tokens and closes their sockets, as an admin's edit does.
   */
  private async applyAdmin(userId: number, source: string, group: string | undefined): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) return;
    const grant = await this.repo.adminGrant(userId);
    const setAdmin = (admin: boolean) =>
      this.users.update(DIRECTORY_ACTOR, userId, {
        name: user.name,
        username: user.username,
        email: user.email,
        alert: user.alert === 1,
        admin,
      });
    if (group !== undefined) {
      if (user.admin === 1) {
        // Already an admin: by hand (left so), or by a rule (now this group's, unless another source's).
        if (grant && grant.source === source && grant.group_name !== group)
          await this.repo.setAdminGrant(userId, source, group);
        return;
      }
      if (grant && grant.source !== source) return;
      await setAdmin(true);
      await this.repo.setAdminGrant(userId, source, group);
      return;
    }
    if (!grant || grant.source !== source) return;
    if (user.admin === 1) {
      try {
        await setAdmin(false);
      } catch (err) {
        // The last admin keeps the flag (and the grant, so a later sign-in tries again).
        if (err instanceof ConflictError) return;
        throw err;
      }
    }
    await this.repo.deleteAdminGrant(userId);
  }

  private async get(id: number): Promise<MappingRow> {
    const row = await this.repo.find(id);
    if (!row) throw new NotFoundError('Mapping not found', { code: ErrorCodes.identityMappingNotFound });
    return row;
  }

  private async check(input: IdentityMappingInput): Promise<void> {
    if (!this.sources.some((s) => s.id === input.source)) {
      const values = this.sources.map((s) => s.id).join(', ');
      throw new ValidationError(`Source must be one of: ${values}`, {
        code: ErrorCodes.identitySourceUnknown,
        field: 'source',
        values,
      });
    }
    if (input.project_id !== null && !(await this.repo.projectExists(input.project_id))) {
      throw new ValidationError('Project not found', { code: ErrorCodes.projectNotFound, field: 'project_id' });
    }
  }

  private values(input: IdentityMappingInput) {
    return {
      source: input.source,
      group_name: input.group,
      admin: input.admin ? 1 : 0,
      project_id: input.project_id,
      role: input.role,
    };
  }
}

/** `ldap` and the OpenID Connect providers that name a groups claim, as sources of groups. */
export function mappingSources(
  oidcProviders: { id: string; displayName: string; groupsClaim: string | undefined }[],
): MappingSource[] {
  const oidc = oidcProviders.filter((p) => p.id !== LDAP_SOURCE && p.groupsClaim !== undefined);
  return [{ id: LDAP_SOURCE, name: 'LDAP' }, ...oidc.map((p) => ({ id: p.id, name: p.displayName }))];
}
