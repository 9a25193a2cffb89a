/**
 * openapi.yaml as the ecosystem's tools read it, not only the project's own Ajv validator:
 * Redocly lints it with no error; a Stoplight Prism mock answers the documented examples (which
 * Ajv accepts too); a Prism validating proxy passes a correct response and reports a planted
 * wrong one (the e2e suite runs all its calls through such a proxy and asserts no report).
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { OPENAPI_FILE } from '../../local/gateway/gateway.ts';
import { LOCALHOST } from '../../local/net.ts';
import { createContract, loadOpenApi } from '../support/contract.ts';
import { responseViolations, startPrism, type Prism } from '../support/prism.ts';

const require = createRequire(import.meta.url);
const document = loadOpenApi();
const contract = createContract(document);

type Json = Record<string, unknown>;
const examples = document.components.examples as Record<string, { value: Json }>;

/** Every documented answer with an example: path, status, media type, example body. */
const documented = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries((item.get as { responses: Record<string, Json> }).responses).flatMap(
    ([status, declared]) => {
      const response = (
        typeof declared.$ref === 'string'
          ? document.components.responses![
              (declared.$ref as string).split('/').pop() as keyof object
            ]
          : declared
      ) as { content: Record<string, { example?: Json; examples?: Record<string, Json> }> };
      return Object.entries(response.content).map(([mediaType, media]) => {
        const named = Object.values(media.examples ?? {})[0] as { $ref: string } | undefined;
        const example = media.example ?? examples[named!.$ref.split('/').pop()!]!.value;
        return { path, status: Number(status), mediaType, example };
      });
    },
  ),
);
/** A request to `path` the contract accepts: ids of 1, and the query a lookup requires. */
const REQUIRED_QUERY: Record<string, string> = { '/transactions': '?receipt_no=1' };
const concrete = (path: string) =>
  `${path.replace(/\{[a-z_]+\}/, '1')}${REQUIRED_QUERY[path] ?? ''}`;

test('Redocly lint: no error', async () => {
  const cli = require.resolve('@redocly/cli/bin/cli.js');
  const run = await promisify(execFile)(
    process.execPath,
    [cli, 'lint', OPENAPI_FILE, '--format=json'],
    {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 10 * 1024 * 1024,
    },
  ).catch((error: { stdout: string; stderr: string }) => error);
  const report = JSON.parse(run.stdout) as {
    totals: { errors: number };
    problems: { severity: string; message: string; location: { pointer: string }[] }[];
  };
  const errors = report.problems.filter((p) => p.severity === 'error');
  expect(errors.map((p) => `${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  expect(report.totals.errors).toBe(0);
}, 60_000);

describe('Prism', () => {
  let mock: Prism;
  let proxy: Prism;
  let upstream: Server;
  /** What the planted upstream answers, per path. */
  const planted = new Map<string, { status: number; body: string }>();

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const answer = planted.get(req.url ?? '') ?? { status: 404, body: '' };
      res.writeHead(answer.status, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => upstream.listen(0, LOCALHOST, resolve));
    const { port } = upstream.address() as { port: number };
    const started = await Promise.allSettled([
      startPrism(),
      startPrism({ upstream: `http://${LOCALHOST}:${port}` }),
    ]);
    [mock, proxy] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined)) as [
      Prism,
      Prism,
    ];
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  }, 90_000);

  afterAll(async () => {
    await Promise.all([mock?.stop(), proxy?.stop()]);
    await new Promise((resolve) => upstream?.close(resolve));
  });

  test('the documented examples conform to the contract (Ajv)', () => {
    expect(documented.length).toBeGreaterThan(15);
    for (const { path, status, mediaType, example } of documented) {
      const headers: Record<string, string> = {
        'content-type': mediaType,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      };
      if (status === 503) headers['retry-after'] = '1';
      expect([
        path,
        status,
        mediaType,
        contract.validate('GET', concrete(path).split('?')[0]!, {
          status,
          headers,
          body: JSON.stringify(example),
        }),
      ]).toEqual([path, status, mediaType, []]);
    }
  });

  test('a mock answers each documented status with its documented example', async () => {
    // Where a response has two media types that differ only by charset (API Gateway's and the
    // function's 401 and 500), Prism, choosing by type and subtype, serves the first one's.
    for (const { path, status, mediaType } of documented) {
      const res = await fetch(`${mock.url}${concrete(path)}`, {
        headers: { authorization: 'Bearer x', accept: mediaType, prefer: `code=${status}` },
      });
      const served = res.headers.get('content-type');
      const example = documented.find(
        (d) => d.path === path && d.status === status && d.mediaType === served,
      )?.example;
      expect([path, res.status, await res.json()]).toEqual([path, status, example]);
    }
  });

  test('a validating proxy passes a correct response and reports a planted wrong one', async () => {
    const good = examples.Transaction!.value;
    const wrong = { ...good, data: { ...(good.data as Json), receipt_no: '20230915000123' } };
    planted.set('/transactions/1', { status: 200, body: JSON.stringify(good) });
    planted.set('/transactions/2', { status: 200, body: JSON.stringify(wrong) });
    planted.set('/transactions/3', {
      status: 404,
      body: JSON.stringify({ message: 'Transaction not found', data: null, detail: 'x' }),
    });
    const violations = async (path: string) =>
      responseViolations(
        (await fetch(`${proxy.url}${path}`, { headers: { authorization: 'Bearer x' } })).headers,
      ).map((v) => `${v.location.join('.')}: ${v.code}`);
    expect(await violations('/transactions/1')).toEqual([]);
    expect(await violations('/transactions/2')).toContain('response.body.data.receipt_no: type');
    expect(await violations('/transactions/3')).toContain('response.body: additionalProperties');
  });
});
