/** The server's small error vocabulary; the error handler maps each to a status and `{ error }`. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra fields for the body, next to `error` (e.g. the references that block a delete). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
export class ValidationError extends AppError {
  /**
   * `details` may carry a stable `code`, the request `field` the refusal is about and what a
   * client needs to word it (e.g. the `variable` named in the message).
   */
  constructor(message: string, details?: { code?: string; field?: string; [k: string]: unknown }) {
    super(400, message, details);
  }
}
export class UnauthorizedError extends AppError {
  constructor(message = 'Not authenticated') {
    super(401, message);
  }
}
export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}
export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}
export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(409, message, details);
  }
}
export class TooManyRequestsError extends AppError {
  constructor(
    message: string,
    /** Sent as `Retry-After`: how long until the caller may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(429, message);
  }
}
