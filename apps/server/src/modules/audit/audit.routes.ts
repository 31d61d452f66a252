import { auditEntrySchema, auditQuerySchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireUser } from '../../platform/auth.js';
import type { AuditService } from './audit.service.js';

/** `GET /api/audit`: admins read every entry, a project's owners that project's (`?project_id=`). */
export function auditRoutes(audit: AuditService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/audit',
      { schema: { tags: ['audit'], querystring: auditQuerySchema, response: { 200: z.array(auditEntrySchema) } } },
      async (request) => {
        const user = requireUser(request);
        return audit.list({ id: user.id, admin: user.admin === 1 }, request.query);
      },
    );
  };
}
