import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * `/api/docs`: the OpenAPI document rendered by Swagger UI, whose files come from the installed
 * package (no CDN), loaded as files (the CSP's `script-src 'self'` holds: no inline script). Public,
 * as `/api/openapi.json` is: it describes routes, never data.
 */
export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object | undefined), public: true };
      route.schema = { ...route.schema, hide: true };
    });
    await docs.register(swaggerUi, {
      routePrefix: '/api/docs',
      uiConfig: { deepLinking: true, docExpansion: 'none', defaultModelsExpandDepth: 0 },
      // Its own copies of the document stay out of the document.
      staticCSP: false,
    });
  });
}
