/**
 * End to end over HTTP, against the whole local rig (startLocalRig: DynamoDB Local, the local
 * Cognito and S3, the gateway with its JWT authorizer in front of the deployed handlers): every
 * row of SPEC section 4 on both routes. Calls are made with the typed client a user would use
 * (openapi-fetch over the types generated from openapi.yaml), through a Stoplight Prism
 * validating proxy; each response is validated against openapi.yaml twice, by the project's Ajv
 * validator (test/support/contract.ts) and by Prism, and neither may find a fault. Meanwhile
 * every log line of the run (the gateway's request log, the functions' stdout, anything on
 * stderr or the console) is captured, and the last test checks that none of it carries personal
 * data, tokens or presigned URLs (SPEC 4). The rig, the seed data, the checking client and the
 * capture are in test/support/e2e-rig.ts.
 */
import fc from 'fast-check';
import { OPENAPI_PATH } from '../../local/gateway/gateway.ts';
import { loadOpenApi, observe } from '../support/contract.ts';
import {
  api,
  bearer,
  call,
  captured,
  checkedResponses,
  conforming,
  CORRUPT_ID,
  CORRUPT_PERSON,
  functionResponses,
  PERSON,
  problemCount,
  proxy,
  realWrite,
  ROUTES,
  secrets,
  rig,
  tokens,
  useApiRig,
} from '../support/e2e-rig.ts';

useApiRig();

describe('SPEC 4, row by row, over HTTP (each response validated against openapi.yaml)', () => {
  test('200: a transaction for any signed-in user, with a signature URL that works', async () => {
    for (const token of [tokens.teller, tokens.compliance]) {
      // As a client writes it: the path, its parameter and the answer's fields are all typed.
      const { data, error, response } = await api.GET('/transactions/{transaction_id}', {
        params: { path: { transaction_id: '1' } },
        headers: bearer(token!),
      });
      conforming(response);
      expect([response.status, error]).toEqual([200, undefined]);
      expect(data!.data.id).toBe(1);
      expect(data!.data.transaction_currencies[0]!.rate).toMatch(/^[0-9]+\.[0-9]{5}$/);
      expect((await fetch(data!.data.signature!)).status).toBe(200);
    }
    const nulls = await call('/transactions/2', tokens.teller);
    expect(nulls.json.data).toMatchObject({ signature: null, attachment: null });
  });

  test('200: a customer for customer-readers, with personal data, nulls and an ID photo URL', async () => {
    const { data, response } = await api.GET('/customers/{customer_id}', {
      params: { path: { customer_id: '1' } },
      headers: bearer(tokens.compliance!),
    });
    conforming(response);
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ id: 1, ...PERSON });
    expect((await fetch(data!.data.id_photo!)).status).toBe(200);
    const nulls = await call('/customers/2', tokens.compliance);
    expect(nulls.json.data).toMatchObject({
      tin: null,
      id_photo: null,
      last_transaction_datetime: null,
    });
  });

  const malformed = [
    '0',
    '-1',
    '1.5',
    '1e3',
    '007',
    'abc',
    '9007199254740992',
    '%20',
    '%FF',
    '1%2F2',
  ];
  test.each(ROUTES)('400 on $base: malformed ids', async ({ entity, base }) => {
    for (const id of malformed) {
      const res = await call(`${base}/${id}`, tokens.compliance);
      expect([id, res.status]).toEqual([id, 400]);
      expect(res.json).toEqual({ message: `Invalid ${entity} id`, data: null });
    }
  });

  const refusedByAuthorizer: [string, () => string | undefined][] = [
    ['no token', () => undefined],
    ['an empty bearer', () => 'Bearer '],
    ['a malformed token', () => 'Bearer not.a.jwt'],
    ['a bad signature', () => `Bearer ${tokens.badSignature}`],
    ['alg none', () => `Bearer ${tokens.algNone}`],
    ['an expired token', () => `Bearer ${tokens.expired}`],
    ['a token not yet valid', () => `Bearer ${tokens.notYetValid}`],
    ['a wrong issuer', () => `Bearer ${tokens.wrongIssuer}`],
    ['another app client', () => `Bearer ${tokens.otherClient}`],
    ['forged groups (payload edited, old signature)', () => `Bearer ${tokens.forgedGroupsEdited}`],
    ['forged groups (re-signed with another key)', () => `Bearer ${tokens.forgedGroupsResigned}`],
  ];
  describe.each(ROUTES)('401 on $base', ({ base }) => {
    test.each(refusedByAuthorizer)('from the authorizer: %s', async (_name, authorization) => {
      const value = authorization();
      const res = await call(`${base}/1`, undefined, value ?? undefined);
      expect(res.status).toBe(401);
      expect(res.body).toBe('{"message":"Unauthorized"}');
    });

    test('from the function: an ID token instead of an access token', async () => {
      for (const token of [tokens.tellerId, tokens.complianceId]) {
        const res = await call(`${base}/1`, token);
        expect(res.status).toBe(401);
        expect(res.json).toEqual({ message: 'Unauthorized', data: null });
      }
    });
  });

  test('403: a valid token without customer-readers on /customers', async () => {
    for (const id of ['1', '999999', 'abc']) {
      const res = await call(`/customers/${id}`, tokens.teller);
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ message: 'Forbidden', data: null });
    }
  });

  test.each(ROUTES)('404 on $base: no such record', async ({ base, Entity }) => {
    const res = await call(`${base}/999999`, tokens.compliance);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: `${Entity} not found`, data: null });
  });

  test.each(ROUTES)(
    '500 on $base: a corrupt stored record, nothing of it shown',
    async ({ base }) => {
      const res = await call(`${base}/${CORRUPT_ID}`, tokens.compliance);
      expect(res.status).toBe(500);
      expect(res.body).toBe('{"message":"Internal server error","data":null}');
    },
  );

  test.each(ROUTES)('503 on $base: DynamoDB unreachable, with Retry-After', async ({ base }) => {
    await proxy.setMode('reset');
    try {
      const res = await call(`${base}/1`, tokens.compliance);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.json).toEqual({ message: 'Service unavailable', data: null });
    } finally {
      await proxy.setMode('forward');
    }
  });

  test('any id over HTTP: never a 5xx, always per the contract (property)', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc
          .oneof(
            fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
            fc.integer({ min: 1, max: 3 }).map(String),
          )
          .filter((id) => id !== '.' && id !== '..' && !/[\uD800-\uDFFF]/.test(id)),
        async ({ base }, id) => {
          runs += 1;
          const res = await call(`${base}/${encodeURIComponent(id)}`, tokens.compliance);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 100 },
    );
    expect(runs).toBe(100);
  });

  test('GET /openapi.json (local gateway only) serves the contract without a token', async () => {
    const res = await observe(`${rig.apiUrl}${OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(loadOpenApi());
  });
});

describe('SPEC 10 over HTTP: the lookups through the typed client (validated as above)', () => {
  const pageOf = (response: Response) => {
    const body = conforming(response);
    return JSON.parse(body) as { message: string; data: { id: number }[] | null; next?: string };
  };

  test("by receipt, by TIN and by name, and a customer's transactions, in pages", async () => {
    // Both seeded transactions carry the fixtures' receipt number.
    const byReceipt = await api.GET('/transactions', {
      params: { query: { receipt_no: '20230915000123', limit: '1' } },
      headers: bearer(tokens.teller!),
    });
    const first = pageOf(byReceipt.response);
    expect(first.data!.map((s) => s.id)).toHaveLength(1);
    const rest = await api.GET('/transactions', {
      params: { query: { receipt_no: '20230915000123', cursor: first.next! } },
      headers: bearer(tokens.teller!),
    });
    expect([...first.data!, ...pageOf(rest.response).data!].map((s) => s.id).sort()).toEqual([
      1, 2,
    ]);

    for (const query of [{ tin: PERSON.tin.slice(0, 11) }, { last_name: PERSON.last_name }]) {
      const found = await api.GET('/customers', {
        params: { query },
        headers: bearer(tokens.compliance!),
      });
      expect(pageOf(found.response)).toMatchObject({
        message: 'Ok',
        data: [{ id: 1 }],
        next: null,
      });
    }
    const listed = await api.GET('/customers/{customer_id}/transactions', {
      params: { path: { customer_id: '1' } },
      headers: bearer(tokens.compliance!),
    });
    expect(pageOf(listed.response)).toMatchObject({ data: [{ id: 1 }], next: null });
  });

  test('400 naming the parameter, 403 outside customer-readers, 404 for an id nothing names', async () => {
    const bad = await api.GET('/customers', {
      params: { query: { tin: '1234' } },
      headers: bearer(tokens.compliance!),
    });
    expect([bad.response.status, pageOf(bad.response)]).toEqual([
      400,
      { message: 'Invalid tin: give at least 9 letters and digits', data: null },
    ]);
    const forbidden = await api.GET('/customers', {
      params: { query: { last_name: PERSON.last_name } },
      headers: bearer(tokens.teller!),
    });
    expect([forbidden.response.status, pageOf(forbidden.response)]).toEqual([
      403,
      { message: 'Forbidden', data: null },
    ]);
    const none = await api.GET('/customers/{customer_id}/transactions', {
      params: { path: { customer_id: '999999' } },
      headers: bearer(tokens.compliance!),
    });
    expect([none.response.status, pageOf(none.response)]).toEqual([
      404,
      { message: 'Customer not found', data: null },
    ]);
  });
});

test('every response above was checked by Ajv and by Prism', () => {
  expect(checkedResponses).toBeGreaterThan(150);
  expect(problemCount).toEqual({ ajv: 0, prism: 0 });
});

// Last: it reads what every test above logged.
test('no log line of the run holds personal data, a token, a presigned URL or a response body', () => {
  const personal = [
    ...Object.values(PERSON).filter((v) => v.length >= 6 && v !== 'Passport'),
    ...Object.values(CORRUPT_PERSON),
    'Orsolya Tellerwoman',
    'Branch Ombudsville',
  ];
  const forbidden = [...personal, ...secrets];
  expect(secrets.size).toBeGreaterThan(20);

  const offending = captured.filter(({ line }) => forbidden.some((value) => line.includes(value)));
  expect(offending).toEqual([]);

  // The lines are there to scan: one per request from the gateway, one per invocation from the functions.
  const gateway = captured
    .filter((c) => c.source === 'gateway')
    .map((c) => JSON.parse(c.line) as Record<string, unknown>);
  const functions = captured
    .filter((c) => c.source === 'stdout')
    .map((c) => JSON.parse(c.line) as Record<string, unknown>)
    .filter((l) => l.message === 'request');
  expect(gateway.length).toBeGreaterThan(150);
  expect(functions).toHaveLength(functionResponses);
  for (const entry of functions) {
    expect(Object.keys(entry).sort()).toEqual(
      expect.arrayContaining([
        'apiRequestId',
        'latencyMs',
        'level',
        'requestId',
        'route',
        'status',
        'timestamp',
      ]),
    );
  }
  // SPEC 7: a request is followed from the access log to the function's line by either id.
  const byLambdaId = new Map(functions.map((f) => [f.requestId, f]));
  const invoked = gateway.filter((g) => g.integrationRequestId !== undefined);
  expect(invoked.length).toBeGreaterThanOrEqual(functions.length);
  for (const g of invoked.filter((x) => byLambdaId.has(x.integrationRequestId as string))) {
    expect(byLambdaId.get(g.integrationRequestId as string)!.apiRequestId).toBe(g.requestId);
  }
  expect(functions.every((f) => invoked.some((g) => g.requestId === f.apiRequestId))).toBe(true);
  expect(functions.map((f) => f.status)).toEqual(
    expect.arrayContaining([200, 400, 401, 403, 404, 500, 503]),
  );
  expect(functions.filter((f) => f.status === 500).map((f) => f.errorName)).toEqual([
    'CorruptRecordError',
    'CorruptRecordError',
  ]);
  // SPEC 8: exactly one audit event per request that reached a function, with its outcome.
  const audits = captured
    .filter((c) => c.source === 'stdout')
    .map((c) => JSON.parse(c.line) as Record<string, unknown>)
    .filter((l) => l.message === 'audit');
  expect(audits).toHaveLength(functions.length);
  const auditOf = new Map(audits.map((a) => [a.requestId, a]));
  for (const f of functions) {
    expect(auditOf.get(f.requestId)).toMatchObject({
      status: f.status,
      apiRequestId: f.apiRequestId,
      route: f.route,
    });
  }
  realWrite.stdout.call(
    process.stdout,
    `log lines scanned: ${captured.length} (gateway ${gateway.length}, functions ${functions.length}, audit events ${audits.length}, other ${captured.length - gateway.length - functions.length - audits.length}); values looked for: ${forbidden.length}\n`,
  );
});
