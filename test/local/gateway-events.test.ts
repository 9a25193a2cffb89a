/**
 * The local gateway's payload 2.0 events, routing, errors, request log and its own pages, against
 * a real cognito-local and a fake route table (so that only the gateway is under test). What the
 * JWT authorizer refuses: gateway-authorizer.test.ts.
 */
import { claimToString } from '../../local/gateway/api-event.ts';
import { routes as deployedRoutes } from '../../core/routes.ts';
import { loadOpenApi } from '../support/contract.ts';
import {
  calls,
  cognito,
  errors,
  gateway,
  get,
  requestLog,
  routes,
  useGateway,
} from '../support/gateway.ts';

useGateway();

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
