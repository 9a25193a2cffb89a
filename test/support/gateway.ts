/**
 * The local gateway in front of a fake route table, with a real cognito-local, for the
 * gateway-*.test.ts files (so that only the gateway is under test): each starts its own
 * (useGateway), and these live bindings are set by its beforeAll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { startCognito, type LocalCognito } from '../../local/cognito/user-pool.ts';
import { startGateway, type Gateway, type LambdaHandler } from '../../local/gateway/gateway.ts';
import type { Route } from '../../core/routes.ts';
import { accessClaims as validClaims } from './jwt.ts';

const fn = (id: string) => ({ id, entry: 'unused', entity: 'transaction' as const });
export const routes: Route[] = [
  { id: 'Echo', method: 'GET', path: '/things/{thing_id}', function: fn('Echo') },
  { id: 'Boom', method: 'GET', path: '/boom', function: fn('Boom') },
  { id: 'Bare', method: 'GET', path: '/bare', function: fn('Bare') },
];

let dataDir: string;
export let cognito: LocalCognito;
export let gateway: Gateway;
export const errors: string[] = [];
export const requestLog: string[] = [];
export const calls: { event: APIGatewayProxyEventV2WithJWTAuthorizer; context: Context }[] = [];

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

export const accessClaims = (overrides: Record<string, unknown> = {}) =>
  validClaims(cognito.issuer, cognito.clientId, overrides);

export function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { headers });
}

/** Starts cognito-local and the gateway before the file's tests; `calls` is emptied before each. */
export function useGateway(): void {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
    cognito = await startCognito({ port: 0, dataDir });
    gateway = await startGateway({
      port: 0,
      authorizer: {
        issuer: cognito.issuer,
        audience: [cognito.clientId],
        jwksUri: cognito.jwksUri,
      },
      routes,
      loadHandler: async (route) => handlers[route.id]!,
      log: (line) => requestLog.push(line),
      errorLog: (line) => errors.push(line),
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await cognito?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    calls.length = 0;
  });
}
