/**
 * A local stand-in for the deployed API Gateway HTTP API. It serves the routes of core/routes.ts,
 * checks a Cognito JWT in front of every route, and invokes the route's Lambda handler in-process
 * with a payload format 2.0 event. The handler is the very module that is deployed, so what runs
 * locally is what runs on AWS.
 *
 * Each step lives in a file beside this one. server.ts takes a request through the steps in
 * order. routing.ts finds the route, authorizer.ts checks the token, and request.ts and
 * api-event.ts build the event. lambda.ts imports and runs the handler, response.ts turns its
 * result into an answer, and logs.ts writes the access and error logs. pages.ts, docs-page.ts
 * and staff-app-pages.ts serve the local rig's own pages, which the deployed API does not have.
 */
import { createServer, type Server } from 'node:http';
import { routes as deployedRoutes, type Route } from '../../core/routes.ts';
import { LOCAL_ACCOUNT_ID, LOCAL_API_ID, LOCAL_REGION } from './api-event.ts';
import { createAuthorizer, type AuthorizerOptions } from './authorizer.ts';
import { createFunctions, importHandler, type HandlerLoader } from './lambda.ts';
import { createLocalPages, OPENAPI_FILE } from './pages.ts';
import { staffAppPages, type LocalStaffAppOptions } from './staff-app-pages.ts';
import { createRouter } from './routing.ts';
import { createRequestListener } from './server.ts';
import { LOCALHOST } from '../net.ts';

export { importHandler, type HandlerLoader, type LambdaHandler } from './lambda.ts';
export { OPENAPI_FILE, OPENAPI_PATH } from './pages.ts';

export interface GatewayOptions {
  /** Port on 127.0.0.1; 0 = any free port. */
  port: number;
  /** The JWT authorizer's configuration, as in the deployed stack. */
  authorizer: AuthorizerOptions;
  /** Defaults to core/routes.ts. */
  routes?: readonly Route[];
  /** Defaults to importing the route's entry file. */
  loadHandler?: HandlerLoader;
  /** Set on process.env before any handler module is imported (handlers read it at import). */
  env?: Record<string, string | undefined>;
  /** One line per request; defaults to stdout. */
  log?: (line: string) => void;
  /** Function errors (as Lambda would log them); defaults to stderr. */
  errorLog?: (line: string) => void;
  /**
   * Served without a token as GET /openapi.json, with interactive docs at GET /docs (local
   * only); false = neither.
   */
  openApiFile?: string | false;
  /** The staff page at /app/ (local only); unset = none. */
  staffApp?: LocalStaffAppOptions;
  /** The Lambda function timeout (10 s deployed): a slower invocation is answered with a 500. */
  functionTimeoutMs?: number;
  region?: string;
  accountId?: string;
  apiId?: string;
}

export interface Gateway {
  /** e.g. http://127.0.0.1:3000 */
  readonly url: string;
  stop(): Promise<void>;
}

function setEnv(env: Record<string, string | undefined> | undefined): void {
  for (const [name, value] of Object.entries(env ?? {})) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

async function listen(server: Server, port: number): Promise<Gateway> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOCALHOST, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('gateway has no address');
  return {
    url: `http://${LOCALHOST}:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const accountId = options.accountId ?? LOCAL_ACCOUNT_ID;
  const openApiFile = options.openApiFile ?? OPENAPI_FILE;
  setEnv(options.env);
  let selfUrl = '';
  const contractPages = openApiFile ? createLocalPages(openApiFile) : undefined;
  const appPages = options.staffApp && staffAppPages(options.staffApp, () => selfUrl);
  const pages =
    contractPages || appPages
      ? (path: string) => appPages?.(path) ?? contractPages?.(path)
      : undefined;
  const listener = createRequestListener({
    pages,
    router: createRouter(options.routes ?? deployedRoutes),
    authorize: await createAuthorizer(options.authorizer),
    functions: createFunctions({
      loadHandler: options.loadHandler ?? importHandler,
      timeoutMs: options.functionTimeoutMs ?? 10_000,
      region: options.region ?? LOCAL_REGION,
      accountId,
    }),
    log: options.log ?? ((line: string) => console.log(line)),
    errorLog: options.errorLog ?? ((line: string) => process.stderr.write(`${line}\n`)),
    accountId,
    apiId: options.apiId ?? LOCAL_API_ID,
  });
  const gateway = await listen(
    createServer((req, res) => void listener(req, res)),
    options.port,
  );
  selfUrl = gateway.url;
  return gateway;
}
