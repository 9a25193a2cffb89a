/** GET one record by id (SPEC 1): the same steps for every entity, from its descriptor. */
import type { EntityDescriptor } from '../../core/entities';
import { parseCanonicalId } from '../../core/ids';
import { requireAccessToken, requireGroup } from './auth';
import { BadRequestError, NotFoundError } from './errors';
import { apiHandler, type ApiHandler } from './http';
import { toApiRecord } from './mapping';
import type { Runtime } from './runtime';

export function recordHandler<R>(entity: EntityDescriptor<R>, runtime: Runtime): ApiHandler {
  return apiHandler(async (event): Promise<R> => {
    requireAccessToken(event);
    if (entity.readGroup !== undefined) requireGroup(event, entity.readGroup);
    const id = parseCanonicalId(event.pathParameters?.[entity.pathParameter]);
    // SPEC 3.3: anything but a canonical id up to 2^53-1 is a 400.
    if (id === undefined) throw new BadRequestError(`Invalid ${entity.name} id`);
    const stored = await runtime.store.readRecord(entity, id);
    if (stored === undefined) throw new NotFoundError(`${entity.label} not found`);
    return toApiRecord(entity, stored, runtime);
  });
}

/**
 * A handler built on its first request from what `create` makes: importing an entry file has no
 * side effects (tests import createHandler without setting process.env), and in Lambda the
 * first request follows init at once, so the work is the same (bench/RESULTS.md).
 */
export function onFirstRequest(create: () => ApiHandler): ApiHandler {
  let handler: ApiHandler | undefined;
  return (event, context) => (handler ??= create())(event, context);
}
