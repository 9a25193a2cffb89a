/**
 * The whole local rig for test/e2e/api.test.ts, behind a Prism validating proxy and a DynamoDB
 * fault proxy, seeded with distinctive personal data; the typed client whose every response is
 * checked against openapi.yaml; and the capture of every log line of the run, which the file's
 * last test scans. Kept here so that the test file holds the tests; these live bindings are set
 * by useApiRig's beforeAll and by the checks as responses arrive.
 */
import { MANY_READS } from './budgets.ts';
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateUserPoolClientCommand } from '@aws-sdk/client-cognito-identity-provider';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import createClient, { type Client } from 'openapi-fetch';
import { cognitoClient, DEMO_PASSWORD, signIn } from '../../local/cognito/user-pool.ts';
import { importHandler } from '../../local/gateway/gateway.ts';
import { freePort, LOCALHOST } from '../../local/net.ts';
import { startLocalRig, type LocalRig } from '../../local/rig/rig.ts';
import { testRigOptions } from './shared-dynamodb.ts';
import { createDocumentClient } from '../../functions/shared/document-client.ts';
import { customer, line, sparseCustomer, transaction } from '../fixtures.ts';
import { createContract } from './contract.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
import type { paths } from '../../client/openapi-types.ts';
import { responseViolations, startPrism, type Prism, type Violation } from './prism.ts';
import { accessClaims, claimsOf, craft, otherRsaKey, unsigned, withEditedPayload } from './jwt.ts';

const contract = createContract();

// --- test data: every personal value is distinctive, so that a log line holding one is found ---

export const PERSON = {
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
export const CORRUPT_PERSON = {
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
export const CORRUPT_ID = '66';

// --- capture of every log line -------------------------------------------------------------

export const captured: { source: string; line: string }[] = [];
const capture = (source: string) => (text: string) => {
  for (const line of text.split('\n')) if (line.trim()) captured.push({ source, line });
};
export const realWrite = { stdout: process.stdout.write, stderr: process.stderr.write };
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

// --- the rig -----------------------------------------------------------------------------

let dataDir: string;
export let rig: LocalRig;
export let proxy: FaultProxy;
let prism: Prism;
/** The typed client, through Prism (see checkingFetch). */
export let api: Client<paths>;
export const tokens: Record<string, string> = {};
/** Every token, URL and body the run saw: none may show up in a log line. */
export const secrets = new Set<string>();
/** Responses that came from a function (so each must have left one log line of its own). */
export let functionResponses = 0;

/** Starts the rig, Prism and the fault proxy, and captures every log line, for the file's tests. */
export function useApiRig(): void {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'e2e-'));
    const seedFile = join(dataDir, 'seed.jsonl');
    writeFileSync(seedFile, `${SEED.join('\n')}\n`);
    // The functions reach DynamoDB through a proxy that can fail on demand (for the 503 row).
    proxy = await startFaultProxy();
    captureProcessOutput();
    // Prism starts beside the rig, in front of the port the gateway is about to take.
    const apiPort = await freePort();
    const prismStarted = startPrism({ upstream: `http://${LOCALHOST}:${apiPort}` });
    rig = await startLocalRig({
      ...testRigOptions(dataDir),
      port: apiPort,
      seedFile,
      env: { ...MANY_READS },
      log: capture('gateway'),
      loadHandler: async (route) => {
        process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
        return importHandler(route);
      },
    });
    proxy.setUpstream(rig.dynamoDbEndpoint);
    prism = await prismStarted;
    api = createClient<paths>({ baseUrl: prism.url, fetch: checkingFetch });

    // A corrupt record of each kind, holding personal data.
    const client = createDocumentClient({
      region: 'us-east-1',
      endpoint: rig.dynamoDbEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      const put = (Item: Record<string, unknown>) =>
        client.send(new PutCommand({ TableName: rig.tableName, Item }));
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

    tokens.teller = await rig.tokenFor('teller@example.com');
    tokens.compliance = await rig.tokenFor('compliance@example.com');
    tokens.tellerId = await rig.tokenFor('teller@example.com', 'id');
    tokens.complianceId = await rig.tokenFor('compliance@example.com', 'id');
    const admin = cognitoClient(rig.cognito.endpoint);
    try {
      const other = await admin.send(
        new CreateUserPoolClientCommand({
          UserPoolId: rig.cognito.userPoolId,
          ClientName: 'other-app',
        }),
      );
      tokens.otherClient = await signIn({
        client: admin,
        clientId: other.UserPoolClient!.ClientId!,
        username: 'compliance@example.com',
        password: DEMO_PASSWORD,
        totpSecret: rig.cognito.demoTotpSecrets['compliance@example.com'],
      });
    } finally {
      admin.destroy();
    }
    const claims = (overrides: Record<string, unknown> = {}) =>
      accessClaims(rig.cognito.issuer, rig.cognito.clientId, overrides);
    const now = Math.floor(Date.now() / 1000);
    const tellerClaims = claimsOf(tokens.teller);
    Object.assign(tokens, {
      badSignature: craft(claims(), { key: otherRsaKey() }),
      algNone: unsigned(claims()),
      expired: craft(claims({ iat: now - 600, exp: now - 5 })),
      notYetValid: craft(claims({ nbf: now + 600 })),
      wrongIssuer: craft(claims({ iss: `${rig.cognito.endpoint}/local_other` })),
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
    await rig?.stop();
    await proxy?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

interface Checked {
  body: string;
  contractProblems: string[];
  prismViolations: Violation[];
}
/** What each response was found to be, by Ajv and by Prism (keyed by openapi-fetch's Response). */
const checks = new WeakMap<Response, Checked>();
/** How many responses both checked (to show that the checks did not pass vacuously). */
export let checkedResponses = 0;
export const problemCount = { ajv: 0, prism: 0 };

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
export function conforming(response: Response): string {
  const checked = checks.get(response)!;
  expect({ ajv: checked.contractProblems, prism: checked.prismViolations }).toEqual({
    ajv: [],
    prism: [],
  });
  return checked.body;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * GET `path` with the typed client, ids placed as given: they are written as they go on the wire,
 * some of them deliberately malformed percent-encodings.
 */
export async function call(path: string, token?: string, authorization?: string) {
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

export const ROUTES = [
  { entity: 'transaction', base: '/transactions', Entity: 'Transaction' },
  { entity: 'customer', base: '/customers', Entity: 'Customer' },
] as const;
