import { Messages, can, permissionsFor, type ProjectRole, ErrorCodes } from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import { ForbiddenError, NotFoundError, ValidationError } from './errors.js';
import { requireUser } from './auth.js';

/** Answers who belongs to a project; the projects module provides it. */
export interface ProjectMembership {
  membership(projectId: number, userId: number): Promise<{ exists: boolean; role: ProjectRole | null }>;
}

export interface ProjectAccess {
  projectId: number;
  role: ProjectRole | null;
  permissions: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    projectAccess?: ProjectAccess;
  }
}

/**
 * The one permission check for project routes: a project the caller does not belong to is
 * 404 (its existence is not revealed), a member without the bit gets 403. `bit` 0 means any
 * member may read. Admins pass everywhere.
 */
export function projectGuard(members: ProjectMembership, bit: number) {
  return async (request: FastifyRequest): Promise<void> => {
    const user = requireUser(request);
    const raw = (request.params as Record<string, string | undefined>).projectId;
    const projectId = Number(raw);
    if (!Number.isInteger(projectId) || projectId <= 0)
      throw new ValidationError('Invalid project id', { code: ErrorCodes.invalidId });
    const { exists, role } = await members.membership(projectId, user.id);
    const admin = user.admin === 1;
    if (!exists || (!role && !admin))
      throw new NotFoundError(Messages.projectNotFound, { code: ErrorCodes.projectNotFound });
    const permissions = permissionsFor(role, admin);
    if (bit !== 0 && !can(permissions, bit)) throw new ForbiddenError();
    request.projectAccess = { projectId, role, permissions };
  };
}

/** The project checked by projectGuard for this request. */
export function projectOf(request: FastifyRequest): ProjectAccess {
  if (!request.projectAccess) throw new Error('projectGuard did not run for this route');
  return request.projectAccess;
}
