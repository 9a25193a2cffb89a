/**
 * A lookup (SPEC 10): one Query of one index, sent together with the caller's access check, whose
 * summaries each count as a read of their kind. The check counts the first; a page of more is
 * cut to what the budget has left by a second request, and its cursor goes on from the last
 * summary shown.
 */
import { CUSTOMER } from '../../core/entities.ts';
import { auditEvent } from './audit.ts';
import { callerOf, requireAccessToken, requireGroup } from './auth.ts';
import { NotFoundError } from './errors.ts';
import { Page, apiHandler, type ApiHandler } from './http.ts';
import { parseQuery, type LookupKind, type LookupRoute } from './lookup-requests.ts';
import type { ApiDeps } from './api-deps.ts';
import { toSummary } from './summaries.ts';

/** What the audit event says of a lookup: filled in as the request is answered. */
interface Asked {
  kind: LookupKind | null;
  customerId: bigint | undefined;
  returned: bigint[];
}

export function lookupHandler(route: LookupRoute, deps: ApiDeps): ApiHandler {
  return apiHandler<Asked>(
    async (event, asked) => {
      requireAccessToken(event);
      const caller = callerOf(event);
      if (route.readGroup !== undefined) requireGroup(event, route.readGroup);
      const query = parseQuery(event.rawQueryString ?? '', route.parameters);
      const request = route.parse(query, event.pathParameters ?? {});
      asked.kind = request.kind;
      asked.customerId = request.customerId;
      const start =
        request.cursor === undefined
          ? undefined
          : deps.cursors.open(request.cursor, request.binding);
      // The access verdict comes first: a refused lookup returns nothing of what the Query brought.
      // One entry more than the page: whether another page follows, without an empty last one.
      const [access, queried] = await Promise.allSettled([
        deps.access.check(caller, route.summary, route.readGroup),
        deps.store.queryIndex(request, request.limit + 1, start),
      ]);
      if (access.status === 'rejected') throw access.reason;
      if (queried.status === 'rejected') throw queried.reason;
      const found = queried.value.entries;
      const entries = found.slice(0, request.limit);
      const after = found.length > request.limit ? entries.at(-1)!.sortKey : queried.value.next;
      const shown =
        entries.length > 1 ? 1 + (await access.value.more(entries.length - 1)) : entries.length;
      const page = entries.slice(0, shown);
      const data = page.map((entry) => toSummary(route.summary.name, entry.fields, deps.times));
      const nextKey = shown < entries.length ? page.at(-1)!.sortKey : after;
      // A customer's transactions: 404 only when neither a customer nor a transaction names the id.
      if (
        request.customerId !== undefined &&
        start === undefined &&
        found.length === 0 &&
        (await deps.store.readRecord(CUSTOMER, request.customerId)) === undefined
      )
        throw new NotFoundError(`${CUSTOMER.label} not found`);
      asked.returned = data.map((summary) => summary.id as bigint);
      return new Page(
        data,
        nextKey === undefined ? null : deps.cursors.seal(nextKey, request.binding),
      );
    },
    {
      prepare: () => ({ kind: null, customerId: undefined, returned: [] }),
      onResponse: (event, context, status, asked) =>
        deps.audit(
          auditEvent(route.summary, event, context, status, asked.customerId, {
            kind: asked.kind,
            returned: asked.returned,
          }),
        ),
    },
  );
}
