import {
  Permission,
  activeTaskSchema,
  idParamSchema,
  taskCreateSchema,
  taskOutputPageSchema,
  taskOutputQuerySchema,
  taskOutputSchema,
  taskRawOutputQuerySchema,
  taskResultSchema,
  taskSchema,
  taskStopSchema,
  type TaskOutput,
} from '@gantry/contracts';
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin, requireUser } from '../../platform/auth.js';
import { projectGuard, projectOf, type ProjectMembership } from '../../platform/permissions.js';
import { presentTask } from './tasks.presenter.js';
import { presentedResponse } from '../../platform/presented-response.js';
import { jsonArrayChunks, textChunks, type TaskOutputService } from './task-output.service.js';
import type { TasksService } from './tasks.service.js';
import { noContent, rawBody } from '../../platform/openapi-document.js';
import { examples, withExample } from '../../platform/openapi-examples.js';

const params = z.object({ projectId: idParamSchema });
const taskParams = z.object({ projectId: idParamSchema, id: idParamSchema });
const adminTaskParams = z.object({ id: idParamSchema });
const OUTPUT_DOC = `Without parameters: the whole log, an array of ${JSON.stringify(Object.keys(taskOutputSchema.shape))} records. With any of from_seq, to_seq, limit, tail or q: one page, {lines, last_seq} (${Object.keys(taskOutputPageSchema.shape).join(', ')}).`;
// The task lists answer presentTask's objects as they are (see presented-response.ts).
const taskList = presentedResponse(z.array(taskSchema));
const lastQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  status: z.string().optional(),
  /** Only tasks whose PLAY RECAP lists this host. */
  host: z.string().max(255).optional(),
});

export function tasksRoutes(
  tasks: TasksService,
  output: TaskOutputService,
  members: ProjectMembership,
): FastifyPluginAsyncZod {
  return async (app) => {
    const read = projectGuard(members, 0);
    const run = projectGuard(members, Permission.runProjectTasks);
    const manage = projectGuard(members, Permission.manageProjectResources);
    const tags = ['tasks'];

    for (const url of ['/project/:projectId/tasks', '/project/:projectId/tasks/last']) {
      app.get(
        url,
        {
          preValidation: read,
          schema: { tags, params, querystring: lastQuery, response: { 200: taskList } },
        },
        async (request) =>
          (
            await tasks.last(
              request.params.projectId,
              request.query.limit,
              undefined,
              request.query.status,
              request.query.host,
            )
          ).map(presentTask),
      );
    }

    for (const url of ['/project/:projectId/templates/:id/tasks', '/project/:projectId/templates/:id/tasks/last']) {
      app.get(
        url,
        {
          preValidation: read,
          schema: { tags, params: taskParams, querystring: lastQuery, response: { 200: taskList } },
        },
        async (request) =>
          (
            await tasks.last(request.params.projectId, request.query.limit, request.params.id, request.query.status)
          ).map(presentTask),
      );
    }

    app.post(
      '/project/:projectId/tasks',
      {
        preValidation: run,
        schema: {
          tags,
          params,
          body: withExample(taskCreateSchema, examples.taskCreate),
          response: { 201: taskSchema },
        },
      },
      async (request, reply) => {
        const u = requireUser(request);
        const actor = { id: u.id, admin: u.admin === 1, role: projectOf(request).role };
        const row = await tasks.create(actor, request.params.projectId, request.body);
        return reply.status(201).send(presentTask(row));
      },
    );

    app.get(
      '/project/:projectId/tasks/:id',
      { preValidation: read, schema: { tags, params: taskParams, response: { 200: taskSchema } } },
      async (request) => {
        const { projectId, id } = request.params;
        const row = await tasks.get(projectId, id);
        return { ...presentTask(row), ...(await tasks.taskExtras(projectId, id, row.tpl_app ?? '')) };
      },
    );

    // What the task left for later workflow nodes and what it was given: readable as its log is.
    app.get(
      '/project/:projectId/tasks/:id/result',
      { preValidation: read, schema: { tags, params: taskParams, response: { 200: taskResultSchema } } },
      async (request) => tasks.result(request.params.projectId, request.params.id),
    );

    // Without a parameter: the whole log as one array (Semaphore's answer), streamed page by page.
    // With any: one page, `{ lines, last_seq }`.
    app.get(
      '/project/:projectId/tasks/:id/output',
      {
        preValidation: read,
        // The whole log is a stream, which Fastify sends without the serializer; a page is checked.
        schema: {
          tags,
          params: taskParams,
          querystring: taskOutputQuerySchema,
          description: OUTPUT_DOC,
          response: { 200: z.union([taskOutputPageSchema, z.array(taskOutputSchema)]) },
        },
      },
      async (request, reply) => {
        const { projectId, id } = request.params;
        if (Object.values(request.query).some((v) => v !== undefined)) return output.page(projectId, id, request.query);
        const pages = await output.all(projectId, id);
        // The array, streamed: typed as the declared answer, which it is once the chunks are joined.
        const whole = Readable.from(jsonArrayChunks(pages)) as unknown as TaskOutput[];
        return reply.type('application/json; charset=utf-8').send(whole);
      },
    );

    // Plain text, streamed: shown by the browser (inline), or saved with `?download=1`.
    app.get(
      '/project/:projectId/tasks/:id/raw_output',
      {
        preValidation: read,
        schema: {
          tags,
          params: taskParams,
          querystring: taskRawOutputQuerySchema,
          response: {
            200: rawBody('text/plain', 'The whole log as text (streamed); an attachment with `?download=1`'),
          },
        },
      },
      async (request, reply) => {
        const { projectId, id } = request.params;
        const pages = await output.allText(projectId, id);
        return reply
          .type('text/plain; charset=utf-8')
          .header(
            'content-disposition',
            `${request.query.download ? 'attachment' : 'inline'}; filename="task-${id}.log"`,
          )
          .header('x-content-type-options', 'nosniff')
          .send(Readable.from(textChunks(pages, request.query.ansi ?? false)));
      },
    );

    app.delete(
      '/project/:projectId/tasks/:id',
      { preValidation: manage, schema: { response: { 204: noContent }, tags, params: taskParams } },
      async (request, reply) => {
        const u = requireUser(request);
        await tasks.delete({ id: u.id, admin: u.admin === 1 }, request.params.projectId, request.params.id);
        return reply.status(204).send();
      },
    );

    app.post(
      '/project/:projectId/tasks/:id/stop',
      {
        preValidation: run,
        schema: { response: { 204: noContent }, tags, params: taskParams, body: taskStopSchema.nullish() },
      },
      async (request, reply) => {
        await tasks.stop(request.params.projectId, request.params.id, request.body?.force ?? false);
        return reply.status(204).send();
      },
    );

    // Semaphore's: every waiting or running task of the template, with the permission to stop one.
    app.post(
      '/project/:projectId/templates/:id/stop_all_tasks',
      {
        preValidation: run,
        schema: { response: { 204: noContent }, tags, params: taskParams, body: taskStopSchema.nullish() },
      },
      async (request, reply) => {
        await tasks.stopAll(request.params.projectId, request.params.id, request.body?.force ?? false);
        return reply.status(204).send();
      },
    );

    app.post(
      '/project/:projectId/tasks/:id/confirm',
      { preValidation: run, schema: { response: { 204: noContent }, tags, params: taskParams } },
      async (request, reply) => {
        const u = requireUser(request);
        const actor = { id: u.id, admin: u.admin === 1, role: projectOf(request).role };
        await tasks.confirm(request.params.projectId, request.params.id, actor);
        return reply.status(204).send();
      },
    );

    app.post(
      '/project/:projectId/tasks/:id/reject',
      { preValidation: run, schema: { response: { 204: noContent }, tags, params: taskParams } },
      async (request, reply) => {
        await tasks.reject(request.params.projectId, request.params.id);
        return reply.status(204).send();
      },
    );

    app.get('/tasks', { schema: { tags, response: { 200: z.array(activeTaskSchema) } } }, async (request) => {
      requireAdmin(request);
      return tasks.active();
    });

    app.get(
      '/tasks/:id',
      { schema: { tags, params: adminTaskParams, response: { 200: taskSchema } } },
      async (request) => {
        requireAdmin(request);
        const row = await tasks.getAny(request.params.id);
        return { ...presentTask(row), ...(await tasks.taskExtras(row.project_id, row.id, row.tpl_app ?? '')) };
      },
    );

    app.delete(
      '/tasks/:id',
      { schema: { response: { 204: noContent }, tags, params: adminTaskParams } },
      async (request, reply) => {
        requireAdmin(request);
        await tasks.stopAny(request.params.id);
        return reply.status(204).send();
      },
    );
  };
}
