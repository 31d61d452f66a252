import { auditExportStatusSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireAdmin } from '../../platform/auth.js';
import type { AuditExportService } from './audit-export.service.js';

/** `GET /api/audit/export` (admins): each export destination's target (no secret), cursor, pending count, last success and error. */
export function auditExportRoutes(exporter: AuditExportService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/audit/export',
      {
        schema: { tags: ['audit'], response: { 200: auditExportStatusSchema } },
        preValidation: async (request) => void requireAdmin(request),
      },
      async () => exporter.status(),
    );
  };
}
