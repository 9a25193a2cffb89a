/**
 * End to end over HTTP, against the whole local stack (startLocalStack: DynamoDB Local, the local
 * Cognito and S3, the gateway with its JWT authorizer in front of the deployed handlers): every
 * row of SPEC section 4 on both routes. Calls are made with the typed client a user would use
 * (openapi-fetch over the types generated from openapi.yaml), through a Stoplight Prism
 * validating proxy; each response is validated against openapi.yaml twice, by the project's Ajv
 * validator (test/support/contract.ts) and by Prism, and neither may find a fault. Meanwhile
 * every log line of the run (the gateway's request log, the functions' stdout, anything on
 * stderr or the console) is captured, and the last test checks that none of it carries personal
 * data, tokens or presigned URLs (SPEC 4).
 */
import { MANY_READS } from '../support/budgets';
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateUserPoolClientCommand } from '@aws-sdk/client-cognito-identity-provider';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import createClient, { type Client } from 'openapi-fetch';
import { cognitoClient, DEMO_PASSWORD, signIn } from '../../local/cognito/user-pool';
import { importHandler, OPENAPI_PATH } from '../../local/gateway/gateway';
import { freePort, LOCALHOST } from '../../local/net';
import { startLocalStack, type LocalStack } from '../../local/stack/stack';
import { createDocumentClient } from '../../functions/shared/document-client';
import { customer, line, sparseCustomer, transaction } from '../fixtures';
import { createContract, loadOpenApi, observe } from '../support/contract';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import type { paths } from '../../client/openapi-types';
import { responseViolations, startPrism, type Prism, type Violation } from '../support/prism';
import {
  accessClaims,
  claimsOf,
  craft,
  otherRsaKey,
  unsigned,
  withEditedPayload,
} from '../support/jwt';

const contract = createContract();

// --- test data: every personal value is distinctive, so that a log line holding one is found ---

const PERSON = {
  first_name: 'Quenelda',
  middle_name: 'Bartholoma',
  last_name: 'Xylophant',
  email: 'quenelda.pii@privacy.test',
  current_address: '77 Secretive Lane, Hiddenvale',
  permanent_address: '12 Confidential Road, Quietown',
  tin: '987-654-321-000',
  sss: '33-1234567-8',
  document_type: 'Passport',
  id_no: 'PIIPASS-4455',
  place_of_birth: 'Hiddenvale',
  nationality: 'Zembian',
  contact_number: '+63 917 555 0199',
};
const CORRUPT_PERSON = {
  first_name: 'Corruptia',
  email: 'corruptia.pii@privacy.test',
  tin: 'CORRUPT-TIN-0001',
  id_no: 'CORRUPT-ID-0002',
};
const SEED = [
  line(
    'transaction',
    transaction({
      id: 1,
      branch: { id: 3, name: 'Branch Ombudsville', address: '5 Branch Street, Ombudsville' },
      customer: { id: 1, first_name: PERSON.first_name, email: PERSON.email },
      signature: 'signatures/demo-signature.png',
      attachment: null,
      created_by: { name: 'Orsolya Tellerwoman' },
    }),
  ),
  line('transaction', transaction({ id: 2, signature: null })),
  line(
    'customer',
    customer({
      id: 1,
      ...PERSON,
      id_photo: 'id-photos/demo-id-photo.png',
      customer_risk_assessments: [
        {
          id: 1,
          customer_id: 1,
          type: { value: 1, description: 'Complete Name' },
          value: `${PERSON.first_name} ${PERSON.middle_name} ${PERSON.last_name}`,
          grade: 1,
        },
      ],
    }),
  ),
  line('customer', sparseCustomer({ id: 2 })),
];
const CORRUPT_ID = '66';

// --- capture of every log line -------------------------------------------------------------

const captured: { source: string; line: string }[] = [];
const capture = (source: string) => (text: string) => {
  for (const line of text.split('\n')) if (line.trim()) captured.push({ source, line });
};
const realWrite = { stdout: process.stdout.write, stderr: process.stderr.write };
function captureProcessOutput(): void {
  for (const name of ['stdout', 'stderr'] as const) {
    const record = capture(name);
    process[name].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      record(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof process.stdout.write;
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const record = capture(`console.${level}`);
    jest
      .spyOn(console, level)
      .mockImplementation((...args: unknown[]) => record(args.map(String).join(' ')));
  }
}
function restoreProcessOutput(): void {
  process.stdout.write = realWrite.stdout;
  process.stderr.write = realWrite.stderr;
  jest.restoreAllMocks();
}

// --- the stack -----------------------------------------------------------------------------

let dataDir: string;
let stack: LocalStack;
let proxy: FaultProxy;
let prism: Prism;
/** The typed client, through Prism (see checkingFetch). */
let api: Client<paths>;
const tokens: Record<string, string> = {};
/** Every token, URL and body the run saw: none may show up in a log line. */
const secrets = new Set<string>();
/** Responses that came from a function (so each must have left one log line of its own). */
let functionResponses = 0;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'e2e-'));
  const seedFile = join(dataDir, 'seed.jsonl');
  writeFileSync(seedFile, `${SEED.join('\n')}\n`);
  // The functions reach DynamoDB through a proxy that can fail on demand (for the 503 row).
  proxy = await startFaultProxy();
  captureProcessOutput();
  // Prism starts beside the stack, in front of the port the gateway is about to take.
  const apiPort = await freePort();
  const prismStarted = startPrism({ upstream: `http://${LOCALHOST}:${apiPort}` });
  stack = await startLocalStack({
    port: apiPort,
    dataDir,
    inMemory: true,
    seedFile,
    env: { ...MANY_READS },
    log: capture('gateway'),
    loadHandler: async (route) => {
      process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
      return importHandler(route);
    },
  });
  proxy.setUpstream(stack.dynamoDbEndpoint);
  prism = await prismStarted;
  api = createClient<paths>({ baseUrl: prism.url, fetch: checkingFetch });

  // A corrupt record of each kind, holding personal data.
  const client = createDocumentClient({
    region: 'us-east-1',
    endpoint: stack.dynamoDbEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const put = (Item: Record<string, unknown>) =>
      client.send(new PutCommand({ TableName: stack.tableName, Item }));
    await put({ pk: `CUS#${CORRUPT_ID}`, sk: 'CUS', id: BigInt(CORRUPT_ID), ...CORRUPT_PERSON });
    await put({
      pk: `TXN#${CORRUPT_ID}`,
      sk: 'TXN',
      id: BigInt(CORRUPT_ID),
      customer: { id: 1n, first_name: CORRUPT_PERSON.first_name, email: CORRUPT_PERSON.email },
      total_amount: 1.5,
    });
  } finally {
    client.destroy();
  }

  tokens.teller = await stack.tokenFor('teller@example.com');
  tokens.compliance = await stack.tokenFor('compliance@example.com');
  tokens.tellerId = await stack.tokenFor('teller@example.com', 'id');
  tokens.complianceId = await stack.tokenFor('compliance@example.com', 'id');
  const admin = cognitoClient(stack.cognito.endpoint);
  try {
    const other = await admin.send(
      new CreateUserPoolClientCommand({
        UserPoolId: stack.cognito.userPoolId,
        ClientName: 'other-app',
      }),
    );
    tokens.otherClient = await signIn({
      client: admin,
      clientId: other.UserPoolClient!.ClientId!,
      username: 'compliance@example.com',
      password: DEMO_PASSWORD,
      totpSecret: stack.cognito.demoTotpSecrets['compliance@example.com'],
    });
  } finally {
    admin.destroy();
  }
  const claims = (overrides: Record<string, unknown> = {}) =>
    accessClaims(stack.cognito.issuer, stack.cognito.clientId, overrides);
  const now = Math.floor(Date.now() / 1000);
  const tellerClaims = claimsOf(tokens.teller);
  Object.assign(tokens, {
    badSignature: craft(claims(), { key: otherRsaKey() }),
    algNone: unsigned(claims()),
    expired: craft(claims({ iat: now - 600, exp: now - 5 })),
    notYetValid: craft(claims({ nbf: now + 600 })),
    wrongIssuer: craft(claims({ iss: `${stack.cognito.endpoint}/local_other` })),
    forgedGroupsEdited: withEditedPayload(tokens.teller, (c) => ({
      ...c,
      'cognito:groups': ['customer-readers'],
    })),
    forgedGroupsResigned: craft(
      { ...tellerClaims, 'cognito:groups': ['customer-readers'] },
      { key: otherRsaKey() },
    ),
  });
  for (const token of Object.values(tokens)) {
    secrets.add(token);
    for (const part of token.split('.')) if (part.length > 16) secrets.add(part);
  }
}, 120_000);

afterAll(async () => {
  restoreProcessOutput();
  process.stdout.write(
    `responses checked by Ajv and by Prism: ${checkedResponses}; contract problems found by Ajv: ${problemCount.ajv}, by Prism: ${problemCount.prism}\n`,
  );
  await prism?.stop();
  await stack?.stop();
  await proxy?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Checked {
  body: string;
  contractProblems: string[];
  prismViolations: Violation[];
}
/** What each response was found to be, by Ajv and by Prism (keyed by openapi-fetch's Response). */
const checks = new WeakMap<Response, Checked>();
/** How many responses both checked (to show that the checks did not pass vacuously). */
let checkedResponses = 0;
const problemCount = { ajv: 0, prism: 0 };

/**
 * The typed client's fetch: every response is checked against the contract on arrival; bodies
 * and presigned URLs of 200s become secrets, which no log line may hold.
 */
async function checkingFetch(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const response = await fetch(request);
  const body = await response.clone().text();
  const observed = { status: response.status, headers: response.headers, body };
  if (String(response.headers.get('content-type')).includes('charset')) functionResponses += 1;
  if (response.status === 200) {
    secrets.add(body);
    for (const match of body.matchAll(/"(https?:\/\/[^"]+)"/g)) {
      secrets.add(match[1]!);
      secrets.add(new URL(match[1]!).searchParams.get('X-Amz-Signature')!);
    }
  }
  const checked = {
    body,
    contractProblems: contract.validate(request.method, url.pathname, observed),
    prismViolations: responseViolations(response.headers),
  };
  checks.set(response, checked);
  checkedResponses += 1;
  problemCount.ajv += checked.contractProblems.length;
  problemCount.prism += checked.prismViolations.length;
  return response;
}

/** Ajv and Prism agree that the response keeps the contract; returns its text. */
function conforming(response: Response): string {
  const checked = checks.get(response)!;
  expect({ ajv: checked.contractProblems, prism: checked.prismViolations }).toEqual({
    ajv: [],
    prism: [],
  });
  return checked.body;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * GET `path` with the typed client, ids placed as given: they are written as they go on the wire,
 * some of them deliberately malformed percent-encodings.
 */
async function call(path: string, token?: string, authorization?: string) {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  else if (token !== undefined) Object.assign(headers, bearer(token));
  const [, base, id] = /^\/(transactions|customers)\/(.*)$/.exec(path)!;
  const pathSerializer = (template: string) => template.replace(/\{[a-z_]+\}/, id!);
  const { response } =
    base === 'transactions'
      ? await api.GET('/transactions/{transaction_id}', {
          params: { path: { transaction_id: id! } },
          headers,
          pathSerializer,
        })
      : await api.GET('/customers/{customer_id}', {
          params: { path: { customer_id: id! } },
          headers,
          pathSerializer,
        });
  const body = conforming(response);
  return {
    status: response.status,
    headers: response.headers,
    body,
    json: JSON.parse(body) as { message: string; data: unknown },
  };
}

const ROUTES = [
  { entity: 'transaction', base: '/transactions', Entity: 'Transaction' },
  { entity: 'customer', base: '/customers', Entity: 'Customer' },
] as const;

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
    const res = await observe(`${stack.apiUrl}${OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(loadOpenApi());
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
