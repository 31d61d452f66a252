import { twoFactorSettingsSchema, twoFactorSettingsUpdateSchema } from '@gantry/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireAdmin } from '../../platform/auth.js';
import type { TwoFactorPolicyService } from './two-factor-policy.service.js';

/** GET/PUT /api/admin/settings/two-factor (admins): who must use two-factor sign-in. */
export function securityRoutes(policy: TwoFactorPolicyService): FastifyPluginAsyncZod {
  return async (app) => {
    const admin = async (request: Parameters<typeof requireAdmin>[0]) => void requireAdmin(request);
    app.get(
      '/admin/settings/two-factor',
      { preValidation: admin, schema: { tags: ['security'], response: { 200: twoFactorSettingsSchema } } },
      async () => policy.get(),
    );
    app.put(
      '/admin/settings/two-factor',
      {
        preValidation: admin,
        schema: { tags: ['security'], body: twoFactorSettingsUpdateSchema, response: { 200: twoFactorSettingsSchema } },
      },
      async (request) => policy.set(requireAdmin(request).id, request.body.required),
    );
  };
}
