/**
 * The black-box contract checks of `npm run smoke -- <api-url>` (SPEC 7): what a client of any
 * deployment can rely on, checked over HTTPS with two access tokens and nothing else: statuses,
 * the envelope and headers (SPEC 2, 4), the authorization matrix, and known records when their
 * ids are given. `npm test` runs the same checks against the local rig.
 *
 * The checks run in order and stop at the first broken promise, which is thrown as a
 * BrokenPromise naming it. What they report is status codes, header values and field paths:
 * never a token, a record's values or a response body (SPEC 4: no personal data in logs).
 */

import { CUSTOMER_READERS_GROUP } from '../../core/groups.ts';

export interface SmokeOptions {
  /** The stage's invoke URL, e.g. https://abc123.execute-api.eu-west-1.amazonaws.com/ */
  readonly apiUrl: string;
  /** Access token of a signed-in user who is NOT in customer-readers (e.g. a teller). */
  readonly userToken: string;
  /** Access token of a user in customer-readers. */
  readonly readerToken: string;
  /** A transaction and a customer that exist in this deployment (optional). */
  readonly transactionId?: string | undefined;
  readonly customerId?: string | undefined;
  /** Called with each promise kept, in order. */
  readonly onPass?: (promise: string) => void;
  /** Per request, ms. @default 15000 */
  readonly timeoutMs?: number;
}

export class BrokenPromise extends Error {
  override readonly name = 'BrokenPromise';
  /** The promise, as the checks name it. */
  readonly promise: string;
  /** What was seen instead: statuses, header values, field paths; never data. */
  readonly seen: string;
  constructor(promise: string, seen: string) {
    super(`${promise}: ${seen}`);
    this.promise = promise;
    this.seen = seen;
  }
}

/** SPEC 4: on every answer of the functions. */
const SPEC_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** The largest id SPEC 3.3 allows: valid, and in no real table. */
const MISSING_ID = '9007199254740991';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

const ROUTES = {
  transaction: { path: '/transactions/', entity: 'transaction', Entity: 'Transaction' },
  customer: { path: '/customers/', entity: 'customer', Entity: 'Customer' },
} as const;
type Kind = keyof typeof ROUTES;

const DECIMAL2 = /^-?(0|[1-9][0-9]*)\.[0-9]{2}$/;
const DECIMAL5 = /^-?(0|[1-9][0-9]*)\.[0-9]{5}$/;
const DATETIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$/;
const ISO_MICROS = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$/;

type Check = (value: unknown) => boolean;
const integer: Check = (v) => Number.isSafeInteger(v);
const string: Check = (v) => typeof v === 'string';
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);
const matches =
  (pattern: RegExp): Check =>
  (v) =>
    typeof v === 'string' && pattern.test(v);
const url: Check = (v) => typeof v === 'string' && /^https?:\/\//.test(v);
const coded: Check = (v) =>
  typeof v === 'object' &&
  v !== null &&
  integer((v as Record<string, unknown>).value) &&
  string((v as Record<string, unknown>).description);

/** SPEC 3: the fields a client reads, with their formats (not every nested field). */
const SHAPES: Record<Kind, Record<string, Check>> = {
  transaction: {
    id: integer,
    receipt_no: integer,
    branch: (v) => typeof v === 'object' && v !== null,
    customer: (v) => typeof v === 'object' && v !== null,
    purpose: coded,
    type: coded,
    total_amount: matches(DECIMAL2),
    total_profit_amount: matches(DECIMAL2),
    signature: nullable(url),
    attachment: nullable(url),
    transaction_currencies: (v) =>
      Array.isArray(v) &&
      v.every(
        (line: Record<string, unknown>) =>
          integer(line.id) &&
          matches(DECIMAL5)(line.rate) &&
          matches(DECIMAL2)(line.exchange_amount) &&
          matches(DECIMAL2)(line.receive_amount),
      ),
    created_by: (v) => typeof v === 'object' && v !== null,
    created_at: matches(DATETIME),
  },
  customer: {
    id: integer,
    first_name: string,
    email: string,
    id_photo: nullable(url),
    date_of_birth: matches(ISO_MICROS),
    assessment_score: integer,
    assessment_risk: coded,
    customer_risk_assessments: Array.isArray,
    last_transaction_datetime: nullable(matches(DATETIME)),
  },
};

export async function runSmoke(options: SmokeOptions): Promise<string[]> {
  const base = options.apiUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const kept: string[] = [];
  const pass = (promise: string) => {
    kept.push(promise);
    options.onPass?.(promise);
  };

  const get = async (path: string, authorization?: string): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = authorization;
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        headers,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new BrokenPromise(
        `the API answers at ${base}`,
        `GET ${path}: ${(error as Error).cause ?? (error as Error).message}`,
      );
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  };

  const expectStatus = (promise: string, path: string, answer: Answer, status: number) => {
    if (answer.status !== status) {
      // An error envelope's message is one of SPEC 4's fixed strings; a record is never shown.
      const message =
        answer.status !== 200 && typeof (answer.json as { message?: unknown })?.message === 'string'
          ? ` "${(answer.json as { message: string }).message.slice(0, 80)}"`
          : '';
      throw new BrokenPromise(promise, `GET ${path} answered ${answer.status}${message}`);
    }
  };
  const expectHeaders = (path: string, answer: Answer) => {
    for (const [name, value] of Object.entries(SPEC_HEADERS)) {
      const seen = answer.headers.get(name);
      if (seen?.toLowerCase().replace(/\s+/g, ' ') !== value) {
        throw new BrokenPromise(
          `SPEC 4: every response has ${name}: ${value}`,
          `GET ${path} (${answer.status}) had ${seen === null ? 'no such header' : JSON.stringify(seen)}`,
        );
      }
    }
  };
  const expectEnvelope = (promise: string, path: string, answer: Answer, message: string) => {
    const body = answer.json as Record<string, unknown> | undefined;
    const keys = body && typeof body === 'object' ? Object.keys(body).sort().join(',') : '';
    if (keys !== 'data,message' || body!.message !== message || body!.data !== null) {
      throw new BrokenPromise(
        promise,
        `GET ${path} (${answer.status}) body is not {"message":"${message}","data":null}` +
          (keys ? ` (fields: ${keys})` : ' (not a JSON object)'),
      );
    }
  };
  /** A function's error answer: status, the SPEC 4 envelope, the SPEC 4 headers. */
  const functionError = async (
    promise: string,
    path: string,
    token: string,
    status: number,
    message: string,
  ) => {
    const answer = await get(path, `Bearer ${token}`);
    expectStatus(promise, path, answer, status);
    expectEnvelope(promise, path, answer, message);
    expectHeaders(path, answer);
    pass(promise);
  };

  // 401 from the authorizer, before any function: no token, and a token that is not one.
  for (const kind of ['transaction', 'customer', 'lookup'] as const) {
    const path = kind === 'lookup' ? LOOKUPS.transactions : `${ROUTES[kind].path}1`;
    for (const [what, authorization] of [
      ['no token', undefined],
      ['a malformed token', 'Bearer not.a.jwt'],
    ] as const) {
      const route = kind === 'lookup' ? '/transactions?receipt_no=' : `${ROUTES[kind].path}{id}`;
      const promise = `SPEC 4: ${what} on GET ${route} is 401 {"message":"Unauthorized"}`;
      const answer = await get(path, authorization);
      expectStatus(promise, path, answer, 401);
      if ((answer.json as { message?: unknown })?.message !== 'Unauthorized') {
        throw new BrokenPromise(promise, `GET ${path} (401) body has no "Unauthorized" message`);
      }
      pass(promise);
    }
  }

  // Checked before the token is used: a reader's token would turn the 403 check into a 200.
  if (groupsOf(options.userToken).includes(CUSTOMER_READERS_GROUP)) {
    throw new BrokenPromise(
      'the user token belongs to a user outside customer-readers',
      "its cognito:groups claim includes customer-readers; use a teller's token (SMOKE_TOKEN)",
    );
  }

  for (const kind of ['transaction', 'customer'] as const) {
    const { path, entity, Entity } = ROUTES[kind];
    const token = kind === 'transaction' ? options.userToken : options.readerToken;
    await functionError(
      `SPEC 3.3/4: a malformed id on GET ${path}{id} is 400 "Invalid ${entity} id"`,
      `${path}abc`,
      token,
      400,
      `Invalid ${entity} id`,
    );
    await functionError(
      `SPEC 3.3/4: id 0 on GET ${path}{id} is 400 "Invalid ${entity} id"`,
      `${path}0`,
      token,
      400,
      `Invalid ${entity} id`,
    );
    await functionError(
      `SPEC 4: a record that does not exist on GET ${path}{id} is 404 "${Entity} not found"`,
      `${path}${MISSING_ID}`,
      token,
      404,
      `${Entity} not found`,
    );
  }
  await functionError(
    'SPEC 1/4: a user outside customer-readers gets 403 "Forbidden" on GET /customers/{id}',
    `/customers/${options.customerId ?? '1'}`,
    options.userToken,
    403,
    'Forbidden',
  );

  const known: [Kind, string | undefined, string][] = [
    ['transaction', options.transactionId, options.userToken],
    ['transaction', options.transactionId, options.readerToken],
    ['customer', options.customerId, options.readerToken],
  ];
  for (const [kind, id, token] of known) {
    if (id === undefined) continue;
    const path = `${ROUTES[kind].path}${id}`;
    const who = token === options.userToken ? 'any signed-in user' : 'a customer-reader';
    const promise = `SPEC 1/2/3: ${who} gets ${kind} ${id} as 200 {"message":"Ok","data":{...}}`;
    const answer = await get(path, `Bearer ${token}`);
    expectStatus(promise, path, answer, 200);
    expectHeaders(path, answer);
    const body = answer.json as { message?: unknown; data?: Record<string, unknown> } | undefined;
    if (body?.message !== 'Ok' || typeof body.data !== 'object' || body.data === null) {
      throw new BrokenPromise(promise, `GET ${path} (200) body is not {"message":"Ok","data":{}}`);
    }
    if (String(body.data.id) !== id) {
      throw new BrokenPromise(promise, `GET ${path} (200) data.id is not ${id}`);
    }
    const wrong = Object.entries(SHAPES[kind])
      .filter(([field, check]) => !check(body.data![field]))
      .map(([field]) => field);
    if (wrong.length) {
      throw new BrokenPromise(
        `SPEC 3: ${kind} fields have their documented types and formats`,
        `GET ${path} (200): wrong or missing ${wrong.join(', ')}`,
      );
    }
    pass(promise);
  }
  await checkLookups(options, { get, expectStatus, expectHeaders, expectEnvelope, pass });
  return kept;
}

/** Lookup paths that find nothing in any real table (SPEC 10): a 200 with an empty page. */
const LOOKUPS = {
  transactions: `/transactions?receipt_no=${MISSING_ID}`,
  customers: '/customers?id_no=SMOKE-NO-SUCH-ID-0000',
};

const SUMMARY_SHAPES: Record<Kind, Record<string, Check>> = {
  transaction: {
    id: integer,
    receipt_no: integer,
    created_at: matches(DATETIME),
    branch: (v) => typeof v === 'object' && v !== null,
    customer: (v) => typeof v === 'object' && v !== null,
    type: coded,
    total_amount: matches(DECIMAL2),
  },
  customer: {
    id: integer,
    first_name: string,
    middle_name: string,
    last_name: string,
    date_of_birth: matches(ISO_MICROS),
    assessment_risk: coded,
    last_transaction_datetime: nullable(matches(DATETIME)),
  },
};

interface Probes {
  get: (path: string, authorization?: string) => Promise<Answer>;
  expectStatus: (promise: string, path: string, answer: Answer, status: number) => void;
  expectHeaders: (path: string, answer: Answer) => void;
  expectEnvelope: (promise: string, path: string, answer: Answer, message: string) => void;
  pass: (promise: string) => void;
}

/** SPEC 10: the lookups answer pages, refuse what is not a lookup, and keep to their groups. */
async function checkLookups(options: SmokeOptions, probe: Probes): Promise<void> {
  const { get, expectStatus, expectHeaders, expectEnvelope, pass } = probe;
  const page = async (promise: string, path: string, token: string, kind: Kind) => {
    const answer = await get(path, `Bearer ${token}`);
    expectStatus(promise, path, answer, 200);
    expectHeaders(path, answer);
    const body = answer.json as { message?: unknown; data?: unknown; next?: unknown } | undefined;
    const keys = body && typeof body === 'object' ? Object.keys(body).sort().join(',') : '';
    if (
      keys !== 'data,message,next' ||
      body!.message !== 'Ok' ||
      !Array.isArray(body!.data) ||
      !(body!.next === null || typeof body!.next === 'string')
    )
      throw new BrokenPromise(
        promise,
        `GET ${path} (200) body is not {"message":"Ok","data":[...],"next":...}`,
      );
    const wrong = (body!.data as Record<string, unknown>[]).flatMap((summary) =>
      Object.entries(SUMMARY_SHAPES[kind])
        .filter(([field, check]) => !check(summary[field]))
        .map(([field]) => field),
    );
    if (wrong.length)
      throw new BrokenPromise(
        `SPEC 10: ${kind} summaries have their documented fields and formats`,
        `GET ${path} (200): wrong or missing ${[...new Set(wrong)].join(', ')}`,
      );
    pass(promise);
    return body as { data: Record<string, unknown>[]; next: string | null };
  };
  const refused = async (promise: string, path: string, token: string, prefix: string) => {
    const answer = await get(path, `Bearer ${token}`);
    expectStatus(promise, path, answer, 400);
    expectHeaders(path, answer);
    const message = (answer.json as { message?: unknown; data?: unknown } | undefined)?.message;
    if (
      typeof message !== 'string' ||
      !message.startsWith(prefix) ||
      (answer.json as { data?: unknown }).data !== null
    )
      throw new BrokenPromise(
        promise,
        `GET ${path} (400) body is not {"message":"${prefix}...","data":null}`,
      );
    pass(promise);
  };

  await page(
    'SPEC 10: a receipt nothing has is 200 with an empty page',
    LOOKUPS.transactions,
    options.userToken,
    'transaction',
  );
  await page(
    'SPEC 10: an ID number nobody has is 200 with an empty page',
    LOOKUPS.customers,
    options.readerToken,
    'customer',
  );
  await refused(
    'SPEC 10: a lookup with no search is 400 naming it',
    '/transactions',
    options.userToken,
    'Invalid query',
  );
  await refused(
    'SPEC 10: a repeated parameter is 400 naming it',
    `${LOOKUPS.transactions}&receipt_no=1`,
    options.userToken,
    'Invalid receipt_no',
  );
  await refused(
    'SPEC 10: a TIN under 9 letters and digits is 400',
    '/customers?tin=12345678',
    options.readerToken,
    'Invalid tin',
  );
  for (const path of [LOOKUPS.customers, `/customers/${options.customerId ?? '1'}/transactions`]) {
    const promise = `SPEC 10: a user outside customer-readers gets 403 "Forbidden" on GET ${path.split('?')[0]}`;
    const answer = await get(path, `Bearer ${options.userToken}`);
    expectStatus(promise, path, answer, 403);
    expectEnvelope(promise, path, answer, 'Forbidden');
    expectHeaders(path, answer);
    pass(promise);
  }
  const missing = `/customers/${MISSING_ID}/transactions`;
  const promise = 'SPEC 10: a customer id nothing names is 404 "Customer not found"';
  const answer = await get(missing, `Bearer ${options.readerToken}`);
  expectStatus(promise, missing, answer, 404);
  expectEnvelope(promise, missing, answer, 'Customer not found');
  pass(promise);

  if (options.customerId === undefined) return;
  const first = `/customers/${options.customerId}/transactions?limit=1`;
  const listed = await page(
    `SPEC 10: customer ${options.customerId}'s transactions are a page of summaries`,
    first,
    options.readerToken,
    'transaction',
  );
  if (listed.next === null) return;
  // Any byte altered: a cursor is authenticated.
  const cursor = listed.next;
  const altered = `${cursor.slice(0, -2)}${cursor.at(-2) === 'A' ? 'B' : 'A'}${cursor.at(-1)}`;
  await refused(
    'SPEC 10: an altered cursor is 400',
    `${first}&cursor=${altered}`,
    options.readerToken,
    'Invalid cursor',
  );
  await refused(
    "SPEC 10: another lookup's cursor is 400",
    `${LOOKUPS.customers}&cursor=${cursor}`,
    options.readerToken,
    'Invalid cursor',
  );
  await page(
    `SPEC 10: the next page of customer ${options.customerId}'s transactions follows its cursor`,
    `${first}&cursor=${cursor}`,
    options.readerToken,
    'transaction',
  );
}

/** The groups claim of an access token, read without verifying it (only to pick checks). */
function groupsOf(token: string): string[] {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
      'cognito:groups'?: unknown;
    };
    const groups = payload['cognito:groups'];
    return Array.isArray(groups) ? groups.map(String) : [];
  } catch {
    return [];
  }
}
