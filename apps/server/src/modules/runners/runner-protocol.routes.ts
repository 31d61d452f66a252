import {
  idParamSchema,
  runnerLogSchema,
  runnerPollRequestSchema,
  runnerPollResponseSchema,
  runnerStatusSchema,
  runnerTerraformSchema,
  ErrorCodes,
} from '@gantry/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { UnauthorizedError } from '../../platform/errors.js';
import type { RunnerProtocolService } from './runner-protocol.service.js';
import type { RunnerRow } from './runners.repository.js';
import type { RunnersService } from './runners.service.js';
import { noContent } from '../../platform/openapi-document.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The runner behind a runner-protocol call. */
    runner?: RunnerRow;
  }
}

const taskParams = z.object({ taskId: idParamSchema });

/**
 * The runner protocol under /api/internal/runners: `Authorization: Bearer <runner token>` only
 * (route config `runner`: user sessions and API tokens are never looked at here).
 */
export function runnerProtocolRoutes(runners: RunnersService, protocol: RunnerProtocolService): FastifyPluginAsyncZod {
  const authenticate = async (request: FastifyRequest): Promise<void> => {
    const token = request.headers.authorization?.match(/^bearer\s+(\S+)\s*$/i)?.[1];
    const runner = token ? await runners.authenticate(token) : null;
    if (!runner) throw new UnauthorizedError('Invalid runner token', { code: ErrorCodes.runnerTokenInvalid });
    request.runner = runner;
  };
  const runnerOf = (request: FastifyRequest): RunnerRow => {
    if (!request.runner) throw new UnauthorizedError('Invalid runner token', { code: ErrorCodes.runnerTokenInvalid });
    return request.runner;
  };
  return async (app) => {
    const opts = { config: { runner: true }, preValidation: authenticate } as const;
    const tags = ['runner protocol'];

    app.post(
      '/internal/runners/poll',
      {
        ...opts,
        schema: { tags, body: runnerPollRequestSchema.optional(), response: { 200: runnerPollResponseSchema } },
      },
      async (request) => protocol.poll(runnerOf(request), request.body?.running ?? []),
    );

    app.post(
      '/internal/runners/tasks/:taskId/log',
      {
        ...opts,
        bodyLimit: 8 * 1024 * 1024,
        schema: { response: { 204: noContent }, tags, params: taskParams, body: runnerLogSchema },
      },
      async (request, reply) => {
        await protocol.log(runnerOf(request), request.params.taskId, request.body);
        return reply.status(204).send();
      },
    );

    // A final status carries the task's output (up to 1 MiB as JSON text, escaped once more in the body).
    app.post(
      '/internal/runners/tasks/:taskId/status',
      {
        ...opts,
        bodyLimit: 8 * 1024 * 1024,
        schema: { response: { 204: noContent }, tags, params: taskParams, body: runnerStatusSchema },
      },
      async (request, reply) => {
        await protocol.status(runnerOf(request), request.params.taskId, request.body);
        return reply.status(204).send();
      },
    );

    // A Terraform/OpenTofu plan's summary or a drift check's finding, sent before the status that follows it.
    app.post(
      '/internal/runners/tasks/:taskId/terraform',
      {
        ...opts,
        bodyLimit: 8 * 1024 * 1024,
        schema: { response: { 204: noContent }, tags, params: taskParams, body: runnerTerraformSchema },
      },
      async (request, reply) => {
        await protocol.terraform(runnerOf(request), request.params.taskId, request.body);
        return reply.status(204).send();
      },
    );
  };
}
