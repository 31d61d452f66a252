import {
  Permission,
  RESTORE_BODY_LIMIT,
  backupExportQuerySchema,
  idParamSchema,
  restoreResultSchema,
} from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import { projectGuard } from '../../platform/permissions.js';
import type { Actor } from '../../platform/resource-routes.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { registerStreamingJsonBody } from './backup.body.js';
import { parseRestoreBody } from './backup.parse.js';
import type { BackupService } from './backup.service.js';
import type { ProjectCacheService } from './project-cache.service.js';
import { jsonObject, noContent, rawBody } from '../../platform/openapi-document.js';

const params = z.object({ projectId: idParamSchema });
const actor = (u: { id: number; admin: number }): Actor => ({ id: u.id, admin: u.admin === 1 });

/** Backup download, restore into a new project, and clearing a project's cache. */
export function backupRoutes(
  backup: BackupService,
  cache: ProjectCacheService,
  projects: ProjectsService,
): FastifyPluginAsyncZod {
  return async (app) => {
    const update = projectGuard(projects, Permission.updateProject);
    // A restore body (up to RESTORE_BODY_LIMIT) is decoded as it arrives, not all at once at its end.
    registerStreamingJsonBody(app, RESTORE_BODY_LIMIT);

    app.get(
      '/project/:projectId/backup',
      {
        preValidation: update,
        schema: {
          tags: ['projects'],
          params,
          querystring: backupExportQuerySchema,
          response: {
            200: rawBody('application/json', 'The project backup in the asked format (an attachment)', jsonObject),
          },
        },
      },
      async (request, reply) => {
        const { fileName, backup: doc } = await backup.exportAs(
          actor(requireUser(request)),
          request.params.projectId,
          request.query.format,
        );
        return reply
          .header('content-disposition', `attachment; filename="${fileName}"`)
          .header('cache-control', 'no-store')
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(doc, null, 2));
      },
    );

    app.post(
      '/projects/restore',
      {
        bodyLimit: RESTORE_BODY_LIMIT,
        // Permission before the body is looked at: who may not create projects learns nothing more.
        preValidation: async (request) => projects.assertCanCreate(actor(requireUser(request))),
        schema: { tags: ['projects'], response: { 201: restoreResultSchema } },
      },
      async (request, reply) => {
        const { doc, unmapped } = await parseRestoreBody(request.body);
        const result = await backup.restore(actor(requireUser(request)), doc, unmapped);
        return reply.status(201).send(result);
      },
    );

    app.delete(
      '/project/:projectId/cache',
      { preValidation: update, schema: { response: { 204: noContent }, tags: ['projects'], params } },
      async (request, reply) => {
        await cache.clear(actor(requireUser(request)), request.params.projectId);
        return reply.status(204).send();
      },
    );
  };
}
