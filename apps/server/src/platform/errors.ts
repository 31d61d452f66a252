import { ErrorCodes, Messages, type ErrorCode } from '@gantry/contracts';

/**
 * What an error adds to its answer beside `error`: its stable `code` (contracts' ErrorCodes, one
 * per meaning), the request `field` it is about (a dotted path) and what a client needs to word
 * the refusal itself (`variable`, `label_key`...; strings and numbers), or other data the answer
 * carries (the references that block a delete).
 */
export interface ErrorDetails {
  code: ErrorCode;
  field?: string;
  [k: string]: unknown;
}

/** The server's small error vocabulary; the error handler maps each to a status and `{ error, code, ... }`. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details: ErrorDetails,
  ) {
    super(message);
  }
}
export class ValidationError extends AppError {
  constructor(message: string, details: ErrorDetails) {
    super(400, message, details);
  }
}
export class UnauthorizedError extends AppError {
  /** Without arguments: "Not authenticated" (`not_authenticated`). */
  constructor();
  constructor(message: string, details: ErrorDetails);
  constructor(
    message: string = Messages.notAuthenticated,
    details: ErrorDetails = { code: ErrorCodes.notAuthenticated },
  ) {
    super(401, message, details);
  }
}
export class ForbiddenError extends AppError {
  /** Without arguments: "Forbidden" (`forbidden`). */
  constructor();
  constructor(message: string, details: ErrorDetails);
  constructor(message: string = Messages.forbidden, details: ErrorDetails = { code: ErrorCodes.forbidden }) {
    super(403, message, details);
  }
}
export class NotFoundError extends AppError {
  constructor(message: string, details: ErrorDetails) {
    super(404, message, details);
  }
}
export class ConflictError extends AppError {
  constructor(message: string, details: ErrorDetails) {
    super(409, message, details);
  }
}
export class TooManyRequestsError extends AppError {
  constructor(
    message: string,
    details: ErrorDetails,
    /** Sent as `Retry-After`: how long until the caller may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(429, message, details);
  }
}
