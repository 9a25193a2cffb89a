/** One function answers several routes (core/routes.ts): each request goes to its route's handler. */
import type { EntityDescriptor } from '../../core/entities.ts';
import { routeKeyOf, type Route } from '../../core/routes.ts';
import { auditEvent, type AuditSink } from './audit.ts';
import { INTERNAL_ERROR_MESSAGE } from './errors.ts';
import { respond, type ApiHandler } from './http.ts';
import { log } from './logger.ts';

/** `entity` and `audit`: the function's, for the one event even a misrouted request leaves (SPEC 8). */
export function byRoute(
  handlers: ReadonlyArray<readonly [Route, ApiHandler]>,
  entity: EntityDescriptor,
  audit: AuditSink,
): ApiHandler {
  const byKey = new Map(handlers.map(([route, handler]) => [routeKeyOf(route), handler]));
  return async (event, context) => {
    const handler = byKey.get(event.routeKey);
    if (handler) return handler(event, context);
    // Only API Gateway invokes the function, with its own routes: a route not here is a bug.
    log({
      level: 'ERROR',
      message: 'no handler for the route',
      requestId: context.awsRequestId,
      apiRequestId: event.requestContext?.requestId,
      route: event.routeKey,
    });
    audit(auditEvent(entity, event, context, 500, undefined));
    return respond(500, INTERNAL_ERROR_MESSAGE, null);
  };
}
