/**
 * Typed errors with the status they map to (SPEC section 4). Only these reach a client with
 * their message; anything else becomes a 500 with a fixed message.
 *
 * Every class names itself with a string: the bundles are minified, which renames classes, and
 * operators read `errorName` in the logs (a name taken from the class came out as "tt").
 */
export abstract class HttpError extends Error {
  abstract override readonly name: string;
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(statusCode: number, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

export class BadRequestError extends HttpError {
  override readonly name = 'BadRequestError';

  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends HttpError {
  override readonly name = 'UnauthorizedError';

  constructor() {
    super(401, 'Unauthorized');
  }
}

export class ForbiddenError extends HttpError {
  override readonly name = 'ForbiddenError';

  constructor() {
    super(403, 'Forbidden');
  }
}

export class NotFoundError extends HttpError {
  override readonly name = 'NotFoundError';

  constructor(message: string) {
    super(404, message);
  }
}

/** The caller has used up their read budget for this route (SPEC 4, 8). */
export class TooManyRequestsError extends HttpError {
  override readonly name = 'TooManyRequestsError';

  constructor(retryAfterSeconds: number) {
    super(429, 'Too many requests', { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** DynamoDB throttled or unreachable after the SDK's retries; the client may try again. */
export class ServiceUnavailableError extends HttpError {
  override readonly name = 'ServiceUnavailableError';

  constructor(retryAfterSeconds = 1) {
    super(503, 'Service unavailable', { 'Retry-After': String(retryAfterSeconds) });
  }
}

export const INTERNAL_ERROR_MESSAGE = 'Internal server error';
