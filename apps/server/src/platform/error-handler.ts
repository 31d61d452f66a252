import { ErrorCodes, Messages, issueCode, type ErrorCode } from '@gantry/contracts';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ZodError } from 'zod';
import { dbFailureOf, describeDbError } from '../db/db-errors.js';
import { AppError, TooManyRequestsError } from './errors.js';
import { isClientRoute, type ServedConsole } from './static-assets.js';

/** Seconds a client is told to wait before retrying while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Maps every failure to `{ error, code }` (contracts' ErrorCodes): known errors keep their status,
 * message, code and details, input errors become 400 with the first validation message and its
 * rule's code, a database that cannot be reached 503 (with Retry-After) and one that is full 507,
 * and anything else is a 500 whose body says nothing about the internals (the details go to the
 * log only).
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    if (err instanceof AppError) {
      if (err instanceof TooManyRequestsError && err.retryAfterSeconds)
        reply.header('retry-after', String(err.retryAfterSeconds));
      return reply.status(err.statusCode).send({ ...err.details, error: err.message });
    }
    if (isConstraintViolation(err)) {
      // A race the services' own checks could not see (e.g. a reference added meanwhile).
      return reply
        .status(409)
        .send({ error: 'The change conflicts with other data; reload and try again', code: ErrorCodes.conflict });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const first = err.validation[0];
      const path = first?.instancePath.split('/').filter(Boolean) ?? [];
      return reply
        .status(400)
        .send({
          error: namingField(first?.message, path),
          ...codeOf({ message: first?.message, params: first?.params.params }, path),
        });
    }
    if (err instanceof ZodError) {
      const first = err.issues[0];
      const params = first && 'params' in first ? first.params : undefined;
      return reply
        .status(400)
        .send({
          error: namingField(first?.message, first?.path ?? []),
          ...codeOf({ message: first?.message, params }, first?.path ?? []),
        });
    }
    const failure = dbFailureOf(err);
    if (failure === 'unavailable') {
      // One short line per request: during an outage every request fails alike, stacks say nothing.
      request.log.warn({ reason: describeDbError(err) }, 'request failed: the database is unreachable');
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      return reply.status(503).send({ error: Messages.databaseUnavailable, code: ErrorCodes.databaseUnavailable });
    }
    if (failure === 'full') {
      request.log.error({ reason: describeDbError(err) }, 'request failed: the database or its disk is full');
      return reply.status(507).send({ error: Messages.databaseFull, code: ErrorCodes.databaseFull });
    }
    const status = (err as FastifyError).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, body too large, unsupported media type).
      return reply
        .status(status)
        .send({ error: clientErrorText(err as FastifyError), code: clientErrorCode(err as FastifyError, status) });
    }
    request.log.error({ err }, 'request failed');
    return reply.status(500).send({ error: 'Internal server error', code: ErrorCodes.internalError });
  });
}

/**
 * Unknown routes: a JSON 404 under /api and /assets; with the console built, every other GET gets
 * its index.html so client-side routes load on a refresh.
 */
export function registerNotFound(app: FastifyInstance, served: ServedConsole | null): void {
  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    if (served && request.method === 'GET' && isClientRoute(url)) {
      const links = served.linksFor(url);
      if (links) reply.header('link', links);
      return reply.type('text/html').sendFile('index.html');
    }
    return reply
      .status(404)
      .send({ error: `Route ${request.method} ${url} not found`, code: ErrorCodes.routeNotFound });
  });
}

/**
 * `{ code, field }` of a validation issue, with the params that word it (`label_key`, `max`...):
 * its contracts rule's code (issueCode), or `invalid_value` for zod's own texts.
 */
function codeOf(
  issue: { message?: string | undefined; params?: unknown },
  path: ReadonlyArray<PropertyKey>,
): Record<string, string | number> {
  const field: Record<string, string> = path.length ? { field: path.map(String).join('.') } : {};
  return { ...(issueCode(issue) ?? { code: ErrorCodes.invalidValue }), ...field };
}

/**
 * A 400 always names the field: the contracts' own messages do ("Project name is required"),
 * zod's generic ones ("Invalid input: expected string, received null") get the field in front.
 */
function namingField(message: string | undefined, path: ReadonlyArray<PropertyKey>): string {
  const text = message ?? 'Invalid request';
  if (!path.length) return text;
  const field = path.map(String).join('.');
  const generic = /^(Invalid|Too (big|small)|Unrecognized|Expected|Required)/.test(text);
  return generic && !text.includes(field) ? `${field}: ${text}` : text;
}

/** MySQL/MariaDB's unique and foreign-key violations (PostgreSQL's are 23505 and 23503). */
const MYSQL_CONSTRAINT_CODES = new Set([
  'ER_DUP_ENTRY',
  'ER_NO_REFERENCED_ROW',
  'ER_NO_REFERENCED_ROW_2',
  'ER_ROW_IS_REFERENCED',
  'ER_ROW_IS_REFERENCED_2',
]);

function isConstraintViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return (
    typeof code === 'string' &&
    (code.startsWith('SQLITE_CONSTRAINT') || code === '23503' || code === '23505' || MYSQL_CONSTRAINT_CODES.has(code))
  );
}

/** Fastify's own client errors by their meaning; other statuses by the status. */
function clientErrorCode(err: FastifyError, status: number): ErrorCode {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ErrorCodes.bodyNotJson;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return ErrorCodes.bodyTooLarge;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return ErrorCodes.unsupportedContentType;
  }
  return STATUS_CODES[status] ?? ErrorCodes.badRequest;
}

/** The code of an answer by its status alone, for a refusal that names none of its own. */
const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  401: ErrorCodes.notAuthenticated,
  403: ErrorCodes.forbidden,
  404: ErrorCodes.notFound,
  405: ErrorCodes.methodNotAllowed,
  409: ErrorCodes.conflict,
  413: ErrorCodes.bodyTooLarge,
  415: ErrorCodes.unsupportedContentType,
  429: ErrorCodes.tooManyRequests,
};

function clientErrorText(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Request body is not valid JSON';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type';
    default:
      return err.message.split('\n')[0] ?? 'Bad request';
  }
}
