import {
  approvalDecisionSchema,
  approvalLinkAnswerSchema,
  approvalLinkInputSchema,
  approvalListQuerySchema,
  approvalSchema,
  idParamSchema,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { ApprovalsService, ApprovalUser } from './approvals.service.js';

const params = z.object({ projectId: idParamSchema });
const itemParams = z.object({ projectId: idParamSchema, id: idParamSchema });

function caller(request: FastifyRequest): ApprovalUser {
  const u = requireUser(request);
  return { id: u.id, username: u.username, admin: u.admin === 1 };
}

export function approvalsRoutes(approvals: ApprovalsService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    // Any member reads a project's approvals. Voting needs no permission bit either: being one of
    // the approval's approvers is the permission (a guest may be one), checked by the service.
    const member = projectGuard(members, 0);
    const tags = ['approvals'];

    app.get('/approvals', { schema: { tags, response: { 200: z.array(approvalSchema) } } }, async (request) =>
      approvals.inbox(caller(request)),
    );

    app.post(
      '/approvals/link',
      { schema: { tags, body: approvalLinkInputSchema, response: { 200: approvalLinkAnswerSchema } } },
      async (request) => approvals.useLink(caller(request), request.body.token),
    );

    app.get(
      '/project/:projectId/approvals',
      {
        preValidation: member,
        schema: { tags, params, querystring: approvalListQuerySchema, response: { 200: z.array(approvalSchema) } },
      },
      async (request) =>
        approvals.list(request.params.projectId, caller(request), request.query.status, request.query.task_id),
    );

    app.get(
      '/project/:projectId/approvals/:id',
      { preValidation: member, schema: { tags, params: itemParams, response: { 200: approvalSchema } } },
      async (request) => approvals.get(request.params.projectId, request.params.id, caller(request)),
    );

    for (const decision of ['approve', 'reject'] as const) {
      app.post(
        `/project/:projectId/approvals/:id/${decision}`,
        {
          preValidation: member,
          schema: { tags, params: itemParams, body: approvalDecisionSchema, response: { 200: approvalSchema } },
        },
        async (request) =>
          approvals.vote(
            request.params.projectId,
            request.params.id,
            caller(request),
            decision,
            (request.body ?? { comment: '' }).comment,
          ),
      );
    }
  };
}
