/**
 * The local gateway's JWT authorizer and payload 2.0 events, against a real cognito-local and a
 * fake route table (so that only the gateway is under test).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import {
  cognitoClient,
  signIn,
  startCognito,
  type LocalCognito,
} from '../../local/cognito/user-pool';
import { claimToString } from '../../local/gateway/api-event';
import { startGateway, type Gateway, type LambdaHandler } from '../../local/gateway/gateway';
import { routes as deployedRoutes, type Route } from '../../stage/routes';
import { loadOpenApi } from '../support/contract';
import {
  accessClaims as validClaims,
  b64url,
  craft,
  hmacWithPublicKey,
  otherRsaKey,
  unsigned,
  withEditedPayload,
} from '../support/jwt';

const routes: Route[] = [
  { id: 'Echo', method: 'GET', path: '/things/{thing_id}', entry: 'unused', entity: 'transaction' },
  { id: 'Boom', method: 'GET', path: '/boom', entry: 'unused', entity: 'transaction' },
  { id: 'Bare', method: 'GET', path: '/bare', entry: 'unused', entity: 'transaction' },
];

let dataDir: string;
let cognito: LocalCognito;
let gateway: Gateway;
let otherPoolToken: string;
let otherClientToken: string;
const errors: string[] = [];
const requestLog: string[] = [];
const calls: { event: APIGatewayProxyEventV2WithJWTAuthorizer; context: Context }[] = [];

const handlers: Record<string, LambdaHandler> = {
  Echo: async (event, context) => {
    calls.push({ event, context });
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'x-from': 'handler' },
      cookies: ['a=1', 'b=2'],
      body: JSON.stringify({ ok: true }),
    };
  },
  Boom: async () => {
    throw new Error('boom');
  },
  Bare: async () => ({ hello: 'world' }),
};

const accessClaims = (overrides: Record<string, unknown> = {}) =>
  validClaims(cognito.issuer, cognito.clientId, overrides);

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { headers });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  cognito = await startCognito({ port: 0, dataDir });
  gateway = await startGateway({
    port: 0,
    authorizer: { issuer: cognito.issuer, audience: [cognito.clientId], jwksUri: cognito.jwksUri },
    routes,
    loadHandler: async (route) => handlers[route.id]!,
    log: (line) => requestLog.push(line),
    errorLog: (line) => errors.push(line),
  });

  // Real tokens from elsewhere: another user pool, and another app client of this pool.
  const admin = cognitoClient(cognito.endpoint);
  try {
    const pool = await admin.send(
      new CreateUserPoolCommand({ PoolName: 'other', UsernameAttributes: ['email'] }),
    );
    const otherPoolId = pool.UserPool!.Id!;
    const otherPoolClient = await admin.send(
      new CreateUserPoolClientCommand({ UserPoolId: otherPoolId, ClientName: 'x' }),
    );
    const username = 'someone@example.com';
    await admin.send(
      new AdminCreateUserCommand({
        UserPoolId: otherPoolId,
        Username: username,
        UserAttributes: [{ Name: 'email', Value: username }],
        MessageAction: 'SUPPRESS',
      }),
    );
    await admin.send(
      new AdminSetUserPasswordCommand({
        UserPoolId: otherPoolId,
        Username: username,
        Password: 'Other-Passw0rd!',
        Permanent: true,
      }),
    );
    otherPoolToken = await signIn({
      client: admin,
      clientId: otherPoolClient.UserPoolClient!.ClientId!,
      username,
      password: 'Other-Passw0rd!',
    });
    const otherClient = await admin.send(
      new CreateUserPoolClientCommand({
        UserPoolId: cognito.userPoolId,
        ClientName: 'another-app',
      }),
    );
    otherClientToken = await signIn({
      client: admin,
      clientId: otherClient.UserPoolClient!.ClientId!,
      username: 'compliance@example.com',
      password: (await import('../../local/cognito/user-pool')).DEMO_PASSWORD,
      totpSecret: cognito.demoTotpSecrets['compliance@example.com'],
    });
  } finally {
    admin.destroy();
  }
});

afterAll(async () => {
  await gateway?.stop();
  await cognito?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  calls.length = 0;
});

describe('a valid token', () => {
  test('an access token reaches the handler with every claim as a string', async () => {
    const token = await cognito.tokenFor('compliance@example.com');
    const res = await get('/things/a%20b?x=1&y=%C3%A9&x=2', {
      authorization: `Bearer ${token}`,
      cookie: 'c1=v1; c2=v2',
      'X-Custom': 'Yes',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(res.headers.get('x-from')).toBe('handler');
    expect(res.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(calls).toHaveLength(1);
    const { event, context } = calls[0]!;

    const claims = event.requestContext.authorizer.jwt.claims;
    for (const value of Object.values(claims)) expect(typeof value).toBe('string');
    expect(claims['cognito:groups']).toBe('[customer-readers]');
    expect(claims.token_use).toBe('access');
    expect(claims.client_id).toBe(cognito.clientId);
    expect(claims.iss).toBe(cognito.issuer);
    expect(claims.exp).toMatch(/^[0-9]{10}$/);
    expect(event.requestContext.authorizer.jwt.scopes).toBeNull();

    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('GET /things/{thing_id}');
    expect(event.rawPath).toBe('/things/a%20b');
    expect(event.rawQueryString).toBe('x=1&y=%C3%A9&x=2');
    expect(event.queryStringParameters).toEqual({ x: '1,2', y: 'é' });
    expect(event.pathParameters).toEqual({ thing_id: 'a b' });
    expect(event.cookies).toEqual(['c1=v1', 'c2=v2']);
    expect(event.headers['x-custom']).toBe('Yes');
    expect(event.headers.authorization).toBe(`Bearer ${token}`);
    expect(event.headers.cookie).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBeUndefined();

    const rc = event.requestContext;
    expect(rc.routeKey).toBe(event.routeKey);
    expect(rc.stage).toBe('$default');
    expect(rc.http).toEqual({
      method: 'GET',
      path: '/things/a%20b',
      protocol: 'HTTP/1.1',
      sourceIp: '127.0.0.1',
      userAgent: expect.any(String),
    });
    expect(rc.requestId).toBe(res.headers.get('apigw-requestid'));
    expect(rc.accountId).toMatch(/^[0-9]{12}$/);
    expect(rc.apiId).toBeTruthy();
    expect(rc.domainName).toBe(new URL(gateway.url).host);
    expect(rc.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Math.abs(rc.timeEpoch - Date.now())).toBeLessThan(10_000);

    expect(context.functionName).toBe('currency-exchange-Echo');
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(0);
  });

  test('a user without groups has no cognito:groups claim', async () => {
    const res = await get('/things/1', {
      authorization: `Bearer ${await cognito.tokenFor('teller@example.com')}`,
    });
    expect(res.status).toBe(200);
    expect(calls[0]!.event.requestContext.authorizer.jwt.claims['cognito:groups']).toBeUndefined();
  });

  test('the Bearer prefix is optional', async () => {
    const res = await get('/things/1', {
      authorization: await cognito.tokenFor('teller@example.com'),
    });
    expect(res.status).toBe(200);
  });

  test('an ID token of the app client passes the authorizer too (its aud is the client id)', async () => {
    const res = await get('/things/1', {
      authorization: `Bearer ${await cognito.tokenFor('teller@example.com', 'id')}`,
    });
    expect(res.status).toBe(200);
    expect(calls[0]!.event.requestContext.authorizer.jwt.claims.token_use).toBe('id');
  });
});

describe('the authorizer refuses, without invoking the function', () => {
  const cases: [string, () => Promise<Record<string, string>>][] = [
    ['no Authorization header', async () => ({})],
    ['an empty bearer token', async () => ({ authorization: 'Bearer ' })],
    ['a malformed token', async () => ({ authorization: 'Bearer not-a-jwt' })],
    ['a token that is not JSON', async () => ({ authorization: 'Bearer a.b.c' })],
    [
      'a token signed by another key',
      async () => ({ authorization: `Bearer ${craft(accessClaims(), { key: otherRsaKey() })}` }),
    ],
    [
      'a real token whose payload was altered',
      async () => {
        const [head, , signature] = (await cognito.tokenFor('teller@example.com')).split('.');
        return { authorization: `Bearer ${head}.${b64url(accessClaims())}.${signature}` };
      },
    ],
    [
      "forged groups: the teller's real token with customer-readers added, old signature",
      async () => ({
        authorization: `Bearer ${withEditedPayload(await cognito.tokenFor('teller@example.com'), (claims) => ({ ...claims, 'cognito:groups': ['customer-readers'] }))}`,
      }),
    ],
    [
      "forged groups: the teller's claims with customer-readers, re-signed with another key under the pool's kid",
      async () => {
        const teller = await cognito.tokenFor('teller@example.com');
        const claims = JSON.parse(Buffer.from(teller.split('.')[1]!, 'base64url').toString());
        return {
          authorization: `Bearer ${craft({ ...claims, 'cognito:groups': ['customer-readers'] }, { key: otherRsaKey() })}`,
        };
      },
    ],
    [
      'a real token with one character of its signature changed',
      async () => {
        const token = await cognito.tokenFor('teller@example.com');
        const last = token.at(-2) === 'A' ? 'B' : 'A';
        return { authorization: `Bearer ${token.slice(0, -2)}${last}${token.at(-1)}` };
      },
    ],
    [
      'a real token with its signature removed',
      async () => ({
        authorization: `Bearer ${(await cognito.tokenFor('teller@example.com')).replace(/[^.]+$/, '')}`,
      }),
    ],
    [
      "HS256 signed with the pool's public key as the secret (key confusion)",
      async () => ({ authorization: `Bearer ${hmacWithPublicKey(accessClaims())}` }),
    ],
    [
      'an unsigned token (alg None)',
      async () => ({ authorization: `Bearer ${unsigned(accessClaims(), 'None')}` }),
    ],
    [
      'an unsigned token that keeps a real signature',
      async () => {
        const [, , signature] = (await cognito.tokenFor('teller@example.com')).split('.');
        return { authorization: `Bearer ${unsigned(accessClaims())}${signature}` };
      },
    ],
    [
      'a token with a fourth segment',
      async () => ({ authorization: `Bearer ${craft(accessClaims())}.extra` }),
    ],
    [
      'a token whose exp is a string',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ exp: String(Math.floor(Date.now() / 1000) + 300) }))}`,
      }),
    ],
    ['Basic credentials', async () => ({ authorization: 'Basic dGVsbGVyOnBhc3N3b3Jk' })],
    [
      'two tokens in the header',
      async () => ({
        authorization: `Bearer ${await cognito.tokenFor('teller@example.com')} Bearer ${await cognito.tokenFor('teller@example.com')}`,
      }),
    ],
    [
      'an expired token',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ exp: Math.floor(Date.now() / 1000) - 5 }))}`,
      }),
    ],
    [
      'a token without exp',
      async () => ({ authorization: `Bearer ${craft(accessClaims({ exp: undefined }))}` }),
    ],
    [
      'a token not valid yet (nbf)',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ nbf: Math.floor(Date.now() / 1000) + 600 }))}`,
      }),
    ],
    [
      'a token issued in the future (iat)',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ iat: Math.floor(Date.now() / 1000) + 600 }))}`,
      }),
    ],
    [
      'a token with another issuer',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ iss: `${cognito.endpoint}/local_other` }))}`,
      }),
    ],
    [
      'a real token from another user pool',
      async () => ({ authorization: `Bearer ${otherPoolToken}` }),
    ],
    [
      'a real token for another app client',
      async () => ({ authorization: `Bearer ${otherClientToken}` }),
    ],
    [
      'an ID token for another audience',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ token_use: 'id', aud: 'someone-else' }))}`,
      }),
    ],
    [
      'a token whose aud is wrong even though client_id is right',
      async () => ({ authorization: `Bearer ${craft(accessClaims({ aud: 'someone-else' }))}` }),
    ],
    [
      'an unsigned token (alg none)',
      async () => ({
        authorization: `Bearer ${unsigned(accessClaims())}`,
      }),
    ],
    [
      'a token with an unknown key id',
      async () => ({
        authorization: `Bearer ${craft(accessClaims(), { header: { kid: 'other' } })}`,
      }),
    ],
  ];

  test.each(cases)('%s: 401 {"message":"Unauthorized"}', async (_name, headers) => {
    const res = await get('/things/1', await headers());
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('{"message":"Unauthorized"}');
    expect(calls).toHaveLength(0);
  });

  test('the crafted tokens differ from a valid one only in what is tested', async () => {
    const res = await get('/things/1', { authorization: `Bearer ${craft(accessClaims())}` });
    expect(res.status).toBe(200);
  });
});

describe('routing and integration errors', () => {
  test.each([
    ['GET', '/nowhere'],
    ['GET', '/things'],
    ['GET', '/things/'],
    ['GET', '/things/1/more'],
    ['POST', '/things/1'],
    ['HEAD', '/things/1'],
  ])('%s %s: 404 {"message":"Not Found"}, even with a valid token', async (method, path) => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${await cognito.tokenFor('compliance@example.com')}` },
    });
    expect(res.status).toBe(404);
    if (method !== 'HEAD') expect(await res.text()).toBe('{"message":"Not Found"}');
    expect(calls).toHaveLength(0);
  });

  test('an unmatched route is a 404 before any authorization', async () => {
    const res = await get('/nowhere');
    expect(res.status).toBe(404);
  });

  test('a function that throws: 500 {"message":"Internal Server Error"}, and the error is logged', async () => {
    const token = await cognito.tokenFor('teller@example.com');
    const res = await get('/boom', { authorization: token });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('{"message":"Internal Server Error"}');
    expect(res.headers.get('content-type')).toBe('application/json');
    const requestId = res.headers.get('apigw-requestid');
    expect(requestId).toBeTruthy();
    const logged = errors.map(
      (line) => JSON.parse(line) as { apiRequestId: string; errorMessage: string },
    );
    // As Lambda logs it: its own request id, plus API Gateway's so the access log leads here.
    expect(logged).toContainEqual(
      expect.objectContaining({
        apiRequestId: requestId,
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        errorMessage: 'boom',
      }),
    );
    expect(errors.join('\n')).not.toContain(token);
  });

  test('a result without statusCode is the JSON body of a 200', async () => {
    const res = await get('/bare', { authorization: await cognito.tokenFor('teller@example.com') });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ hello: 'world' });
  });
});

test('one log line per request, with both request ids, without tokens or claims', async () => {
  const token = await cognito.tokenFor('compliance@example.com');
  requestLog.length = 0;
  await get('/things/1', { authorization: token });
  expect(requestLog).toHaveLength(1);
  const line = JSON.parse(requestLog[0]!) as Record<string, unknown>;
  expect(Object.keys(line).sort()).toEqual([
    'integrationRequestId',
    'latencyMs',
    'method',
    'requestId',
    'routeKey',
    'status',
  ]);
  // The Lambda request id the function saw (as the deployed access log's integrationRequestId).
  expect(line.integrationRequestId).toBe(calls.at(-1)!.context.awsRequestId);
  expect(line).toMatchObject({ method: 'GET', routeKey: 'GET /things/{thing_id}', status: 200 });
  expect(requestLog[0]).not.toContain(token.split('.')[1]);
  expect(requestLog[0]).not.toContain('customer-readers');
});

test('claims are rendered as API Gateway does', () => {
  expect(claimToString(['a', 'b'])).toBe('[a b]');
  expect(claimToString(1787992402)).toBe('1787992402');
  expect(claimToString(true)).toBe('true');
  expect(claimToString('x')).toBe('x');
});

test('GET /openapi.json serves the contract without a token; it is no route of the deployed API', async () => {
  const res = await get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(await res.json()).toEqual(loadOpenApi());
  expect((await fetch(`${gateway.url}/openapi.json`, { method: 'POST' })).status).toBe(404);
  expect(calls).toHaveLength(0);
  expect(routes.concat(deployedRoutes).some((r) => r.path === '/openapi.json')).toBe(false);
});

test('GET /docs serves the docs page and its files from node_modules without a token', async () => {
  const page = await fetch(`${gateway.url}/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await page.text()).toContain('npm run --silent token -- teller@example.com');
  for (const [path, type] of [
    ['/docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['/docs/swagger-ui.css', 'text/css; charset=utf-8'],
  ]) {
    const res = await fetch(`${gateway.url}${path}`);
    expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 200, type]);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  }
  expect((await fetch(`${gateway.url}/docs/other.js`)).status).toBe(404);
  expect(calls).toHaveLength(0);
});
