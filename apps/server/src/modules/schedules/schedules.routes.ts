import {
  Permission,
  cronValidateSchema,
  idParamSchema,
  scheduleNextRunsResultSchema,
  scheduleNextRunsSchema,
  scheduleSchema,
  requiredMessage,
} from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import { ValidationError } from '../../platform/errors.js';
import { cronErrorCode, cronReason } from '../../platform/cron.js';
import { presentSchedule } from './schedules.presenter.js';
import type { SchedulesService } from './schedules.service.js';
import { noBody, noContent } from '../../platform/openapi-document.js';

const params = z.object({ projectId: idParamSchema });
const itemParams = z.object({ projectId: idParamSchema, id: idParamSchema });

/** Beside the resource routes: the active toggle, cron validation, next due times and a template's schedules. */
export function schedulesExtraRoutes(schedules: SchedulesService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['schedules'];
    app.put(
      '/project/:projectId/schedules/:id/active',
      {
        preValidation: projectGuard(members, Permission.manageProjectResources),
        schema: {
          response: { 204: noContent },
          tags,
          params: itemParams,
          body: z.object({ active: z.boolean(requiredMessage('Active')) }),
        },
      },
      async (request, reply) => {
        const u = requireUser(request);
        await schedules.setActive(
          { id: u.id, admin: u.admin === 1 },
          request.params.projectId,
          request.params.id,
          request.body.active,
        );
        return reply.status(204).send();
      },
    );

    // As Semaphore: a bad cron is a 400 `{"error": "Cron: <reason>"}`, a good one a 200 with no body.
    app.post(
      '/project/:projectId/schedules/validate',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags, params, body: cronValidateSchema, response: { 200: noBody('A valid expression') } },
      },
      async (request, reply) => {
        const reason = cronReason(request.body.cron_format);
        if (reason !== null)
          throw new ValidationError(`Cron: ${reason}`, { code: cronErrorCode(reason), field: 'cron_format' });
        return reply.status(200).send();
      },
    );

    // Gantry's own: the next due times of an expression, from the scheduler's cron library (any member may ask).
    app.post(
      '/project/:projectId/schedules/next_runs',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags, params, body: scheduleNextRunsSchema, response: { 200: scheduleNextRunsResultSchema } },
      },
      async (request) => ({ runs: schedules.nextRuns(request.body.cron_format, request.body.count) }),
    );

    app.get(
      '/project/:projectId/templates/:id/schedules',
      {
        preValidation: projectGuard(members, 0),
        schema: { tags, params: itemParams, response: { 200: z.array(scheduleSchema) } },
      },
      async (request) =>
        (await schedules.list(request.params.projectId, { template_id: String(request.params.id) })).map(
          presentSchedule,
        ),
    );
  };
}
