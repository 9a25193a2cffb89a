/**
 * What a lookup request asks for (SPEC 10), read from its raw query string: API Gateway's
 * payload 2.0 joins a repeated parameter's values with commas in `queryStringParameters`, so
 * only `rawQueryString` tells a repeat (or a comma in a value) from one value. Every parameter
 * that is not as SPEC 10 says is a 400 naming it.
 */
import { CUSTOMER, TRANSACTION, type EntityDescriptor } from '../../core/entities.ts';
import { parseCanonicalId } from '../../core/ids.ts';
import { ROUTES, routeKeyOf } from '../../core/routes.ts';
import { INDEXES, INDEX_ATTRIBUTES, namePrefix, type IndexLayout } from '../../core/lookups.ts';
import {
  MAX_LOOKUP_CHARS,
  TIN_PREFIX_CHARS,
  charCount,
  normaliseIdentifier,
  normaliseName,
} from '../../core/matching.ts';
import { BadRequestError } from './errors.ts';

/** The kinds of lookup, as the audit trail names them. */
export type LookupKind = 'receipt_no' | 'tin' | 'sss' | 'id_no' | 'name' | 'customer_id';

/** One Query of one index, and what binds its cursor. */
export interface LookupRequest {
  readonly kind: LookupKind;
  readonly index: IndexLayout;
  readonly partition: string;
  /** The index's sort key begins with this. */
  readonly sortPrefix?: string;
  /** A projected attribute that must begin with this (a TIN longer than the partition's 9). */
  readonly filter?: { readonly attribute: string; readonly prefix: string };
  /** Newest first (transactions); names ascending (customers). */
  readonly descending: boolean;
  readonly limit: number;
  readonly cursor?: string;
  /** The customer id of a customer's transactions. */
  readonly customerId?: bigint;
  /** What the cursor is sealed to: this lookup, and no other. */
  readonly binding: string;
}

/** A lookup route: whose summaries it returns (the budget they count against) and who may call. */
export interface LookupRoute {
  readonly routeKey: string;
  /** The entity of its summaries (SPEC 10: each counts as one read of that kind). */
  readonly summary: EntityDescriptor;
  readonly readGroup?: string;
  /** The query parameters it takes: any other is a 400. */
  readonly parameters: readonly string[];
  readonly parse: (
    query: Query,
    pathParameters: Record<string, string | undefined>,
  ) => LookupRequest;
}

export const LIMIT = { default: 10, max: 100 } as const;
/** A sealed sort key of at most 1,024 bytes (DynamoDB's limit), in base64url, fits in this. */
const MAX_CURSOR_CHARS = 2048;

type Query = ReadonlyMap<string, string>;

const bad = (parameter: string, reason: string) =>
  new BadRequestError(`Invalid ${parameter}: ${reason}`);

/** `+` is a space and `%xx` an escape, as a browser's form or URLSearchParams writes them. */
function decodeComponent(raw: string, parameter: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw bad(parameter, 'malformed percent-encoding');
  }
}

/** The query's parameters, each once, each allowed, none empty or over 200 characters. */
export function parseQuery(rawQueryString: string, allowed: readonly string[]): Query {
  const query = new Map<string, string>();
  for (const part of rawQueryString === '' ? [] : rawQueryString.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq), 'parameter name');
    const value = decodeComponent(eq < 0 ? '' : part.slice(eq + 1), name);
    if (!allowed.includes(name))
      throw new BadRequestError(
        `Invalid parameter ${JSON.stringify(name.slice(0, 40))}: not one of ${allowed.join(', ')}`,
      );
    if (query.has(name)) throw bad(name, 'given more than once');
    if (value === '') throw bad(name, 'empty');
    // A cursor is ours (./cursor.ts), as long as the sort key it holds: not a value searched for.
    const max = name === 'cursor' ? MAX_CURSOR_CHARS : MAX_LOOKUP_CHARS;
    if (charCount(value) > max) throw bad(name, `over ${max} characters`);
    query.set(name, value);
  }
  return query;
}

function pageOf(query: Query): { limit: number; cursor?: string } {
  const raw = query.get('limit');
  let limit: number = LIMIT.default;
  if (raw !== undefined) {
    const n = parseCanonicalId(raw);
    if (n === undefined || n > BigInt(LIMIT.max))
      throw bad('limit', `must be a whole number from 1 to ${LIMIT.max}`);
    limit = Number(n);
  }
  const cursor = query.get('cursor');
  return cursor === undefined ? { limit } : { limit, cursor };
}

/** Exactly one of `kinds` is given: its name. */
function oneOf(query: Query, kinds: readonly string[]): string {
  const given = kinds.filter((kind) => query.has(kind));
  if (given.length === 0)
    throw new BadRequestError(`Invalid query: give one of ${kinds.join(', ')}`);
  if (given.length > 1)
    throw bad(given[1]!, `give only one of ${kinds.join(', ')}, not ${given.join(' and ')}`);
  return given[0]!;
}

const PAGE = ['limit', 'cursor'] as const;
const bind = (...parts: string[]) => parts.join('\n');

export const FIND_TRANSACTIONS: LookupRoute = {
  routeKey: routeKeyOf(ROUTES.findTransactions),
  summary: TRANSACTION,
  parameters: ['receipt_no', ...PAGE],
  parse(raw) {
    oneOf(raw, ['receipt_no']);
    const receipt = parseCanonicalId(raw.get('receipt_no'));
    if (receipt === undefined)
      throw bad(
        'receipt_no',
        'must be a whole number from 1 to 9007199254740991, no leading zeros',
      );
    return {
      kind: 'receipt_no',
      index: INDEXES.receipt,
      partition: String(receipt),
      descending: true,
      ...pageOf(raw),
      binding: bind(this.routeKey, 'receipt_no', String(receipt)),
    };
  },
};

const CUSTOMER_KINDS = ['tin', 'sss', 'id_no', 'last_name'] as const;

export const FIND_CUSTOMERS: LookupRoute = {
  routeKey: routeKeyOf(ROUTES.findCustomers),
  summary: CUSTOMER,
  readGroup: CUSTOMER.readGroup,
  parameters: [...CUSTOMER_KINDS, 'first_name', ...PAGE],
  parse(raw) {
    const kind = oneOf(raw, CUSTOMER_KINDS) as (typeof CUSTOMER_KINDS)[number];
    const value = raw.get(kind)!;
    if (raw.has('first_name') && kind !== 'last_name')
      throw bad('first_name', 'goes with last_name only');
    const page = pageOf(raw);
    const base = { descending: false, ...page };
    if (kind === 'last_name') {
      const last = normaliseName(value);
      if (last === '') throw bad('last_name', 'has no letter or digit');
      const firstRaw = raw.get('first_name');
      const first = firstRaw === undefined ? '' : normaliseName(firstRaw);
      if (firstRaw !== undefined && first === '') throw bad('first_name', 'has no letter or digit');
      return {
        ...base,
        kind: 'name',
        index: INDEXES.lastName,
        partition: last,
        sortPrefix: namePrefix(last, first),
        binding: bind(this.routeKey, 'name', last, first),
      };
    }
    const normalised = normaliseIdentifier(value);
    if (normalised === '') throw bad(kind, 'has no letter or digit');
    if (kind === 'tin') {
      if (charCount(normalised) < TIN_PREFIX_CHARS)
        throw bad('tin', `give at least ${TIN_PREFIX_CHARS} letters and digits`);
      const partition = [...normalised].slice(0, TIN_PREFIX_CHARS).join('');
      return {
        ...base,
        kind,
        index: INDEXES.tin,
        partition,
        ...(partition === normalised
          ? {}
          : { filter: { attribute: INDEX_ATTRIBUTES.tinWhole, prefix: normalised } }),
        binding: bind(this.routeKey, kind, normalised),
      };
    }
    return {
      ...base,
      kind,
      index: kind === 'sss' ? INDEXES.sss : INDEXES.idNo,
      partition: normalised,
      binding: bind(this.routeKey, kind, normalised),
    };
  },
};

export const CUSTOMER_TRANSACTIONS: LookupRoute = {
  routeKey: routeKeyOf(ROUTES.customerTransactions),
  summary: TRANSACTION,
  readGroup: CUSTOMER.readGroup,
  parameters: PAGE,
  parse(raw, path) {
    const customerId = parseCanonicalId(path.customer_id);
    if (customerId === undefined) throw new BadRequestError('Invalid customer id');
    return {
      kind: 'customer_id',
      index: INDEXES.customerTransactions,
      partition: String(customerId),
      descending: true,
      customerId,
      ...pageOf(raw),
      binding: bind(this.routeKey, String(customerId)),
    };
  },
};
