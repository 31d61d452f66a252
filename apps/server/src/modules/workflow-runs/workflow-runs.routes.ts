import { Permission, idParamSchema, workflowRunSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard, type ProjectMembership } from '../../platform/permissions.js';
import type { WorkflowRunsService } from './workflow-runs.service.js';
import { noContent } from '../../platform/openapi-document.js';

const runsParams = z.object({ projectId: idParamSchema, workflowId: idParamSchema });
const runParams = runsParams.extend({ runId: idParamSchema });
const summarySchema = workflowRunSchema.omit({ nodes: true });

/** Runs of a workflow: members read them; starting, stopping and resuming need the task-run permission, as tasks do. */
export function workflowRunsRoutes(runs: WorkflowRunsService, members: ProjectMembership): FastifyPluginAsyncZod {
  return async (app) => {
    const read = projectGuard(members, 0);
    const run = projectGuard(members, Permission.runProjectTasks);
    const tags = ['workflows'];
    const base = '/project/:projectId/workflows/:workflowId/runs';
    const actorOf = (request: Parameters<typeof requireUser>[0]) => {
      const u = requireUser(request);
      return { id: u.id, admin: u.admin === 1 };
    };

    app.get(
      base,
      { preValidation: read, schema: { tags, params: runsParams, response: { 200: z.array(summarySchema) } } },
      async (request) => runs.list(request.params.projectId, request.params.workflowId),
    );

    app.post(
      base,
      { preValidation: run, schema: { tags, params: runsParams, response: { 201: workflowRunSchema } } },
      async (request, reply) => {
        const started = await runs.start(actorOf(request), request.params.projectId, request.params.workflowId);
        return reply.status(201).send(started);
      },
    );

    app.get(
      `${base}/:runId`,
      { preValidation: read, schema: { tags, params: runParams, response: { 200: workflowRunSchema } } },
      async (request) => runs.get(request.params.projectId, request.params.workflowId, request.params.runId),
    );

    app.post(
      `${base}/:runId/stop`,
      { preValidation: run, schema: { response: { 204: noContent }, tags, params: runParams } },
      async (request, reply) => {
        await runs.stop(actorOf(request), request.params.projectId, request.params.workflowId, request.params.runId);
        return reply.status(204).send();
      },
    );

    app.post(
      `${base}/:runId/resume`,
      { preValidation: run, schema: { tags, params: runParams, response: { 200: workflowRunSchema } } },
      async (request) =>
        runs.resume(actorOf(request), request.params.projectId, request.params.workflowId, request.params.runId),
    );

    app.post(
      `${base}/:runId/rerun`,
      { preValidation: run, schema: { tags, params: runParams, response: { 201: workflowRunSchema } } },
      async (request, reply) => {
        const started = await runs.rerun(
          actorOf(request),
          request.params.projectId,
          request.params.workflowId,
          request.params.runId,
        );
        return reply.status(201).send(started);
      },
    );
  };
}
