import { createRequire } from 'node:module';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TransportSingleOptions } from 'pino';

/** Fastify's `logger` option: off, or pino at a level (pretty single lines on a terminal). */
export type LoggerOptions = false | { level: string; transport?: TransportSingleOptions };

export interface TerminalOptions {
  /** Whether stdout is a terminal (a person reads it) rather than a pipe or journald. */
  tty: boolean;
  /** Finds pino-pretty; throws when it is not installed. */
  resolve?: (id: string) => string;
}

const requireHere = createRequire(import.meta.url);

/**
 * JSON lines for machines (journald, log shippers); on a terminal, pino-pretty's single lines
 * when it can be loaded (it runs in pino's worker thread), JSON otherwise.
 */
export function loggerOptions(
  level: string,
  terminal: TerminalOptions = { tty: process.stdout.isTTY === true },
): LoggerOptions {
  if (level === 'silent') return false;
  if (!terminal.tty) return { level };
  let target: string;
  try {
    // An absolute path: pino's worker resolves a bare name from its own folder, not ours.
    target = (terminal.resolve ?? requireHere.resolve)('pino-pretty');
  } catch {
    return { level };
  }
  return {
    level,
    transport: {
      target,
      options: { singleLine: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
    },
  };
}

/**
 * Fastify's per-request lines (`incoming request`, `request completed`, unknown routes) at debug
 * instead of info, so an operator's terminal and journal show events, not one line per request.
 * Failed requests still log at error.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, _request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug(`Route ${request.raw.method}:${request.raw.url} not found`);
  }
}
