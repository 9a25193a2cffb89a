/** One function answers several routes (core/routes.ts): each request goes to its route's handler. */
import { routeKeyOf, type Route } from '../../core/routes.ts';
import { INTERNAL_ERROR_MESSAGE } from './errors.ts';
import { respond, type ApiHandler } from './http.ts';
import { log } from './logger.ts';

export function byRoute(handlers: ReadonlyArray<readonly [Route, ApiHandler]>): ApiHandler {
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
    return respond(500, INTERNAL_ERROR_MESSAGE, null);
  };
}
