/** GET one record by id (SPEC 1): the same steps for every entity, from its descriptor. */
import type { EntityDescriptor } from '../../core/entities.ts';
import { parseCanonicalId } from '../../core/ids.ts';
import { auditEvent } from './audit.ts';
import { callerOf, requireAccessToken, requireGroup } from './auth.ts';
import { BadRequestError, NotFoundError } from './errors.ts';
import { apiHandler, type ApiHandler } from './http.ts';
import { toApiRecord } from './mapping.ts';
import type { ApiDeps } from './api-deps.ts';

export function recordHandler<R>(entity: EntityDescriptor<R>, deps: ApiDeps): ApiHandler {
  return apiHandler<bigint | undefined>(
    async (event, id): Promise<R> => {
      requireAccessToken(event);
      const caller = callerOf(event);
      if (entity.readGroup !== undefined) requireGroup(event, entity.readGroup);
      // SPEC 3.3: anything but a canonical id up to 2^53-1 is a 400.
      if (id === undefined) throw new BadRequestError(`Invalid ${entity.name} id`);
      // SPEC 6.1, 8: the access state and the record in one round trip. The access verdict
      // comes first: a refused read returns nothing of what the GetItem brought.
      const settled = Promise.allSettled([
        deps.access.check(caller, entity),
        deps.store.readRecord(entity, id),
      ]);
      // Once the requests are on their way: the zone's data loads while they travel.
      setImmediate(deps.times.prepare);
      const [access, stored] = await settled;
      if (access.status === 'rejected') throw access.reason;
      if (stored.status === 'rejected') throw stored.reason;
      if (stored.value === undefined) throw new NotFoundError(`${entity.label} not found`);
      return toApiRecord(entity, stored.value, deps);
    },
    {
      // The path's id, parsed once: the read takes it, and the audit event names it.
      prepare: (event) => parseCanonicalId(event.pathParameters?.[entity.pathParameter]),
      onResponse: (event, context, status, id) =>
        deps.audit(auditEvent(entity, event, context, status, id)),
    },
  );
}
