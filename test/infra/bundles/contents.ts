/** What is in the bundles, a GET through each, how they sign, and a start without credentials. */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { mapStackTrace, rebuild } from '../../../bin/stack-trace.ts';
import { createPresigner } from '../../../functions/shared/presigner.ts';
import { routes } from '../../../stage/routes.ts';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import {
  FIXED_CLOCK,
  CREDENTIALS,
  TRANSACTION,
  CUSTOMER,
  bundles,
  STOCK_BUNDLE,
  table,
  lambdaEnv,
  invoke,
  EVENTS,
} from './setup.ts';

describe('what is in the bundles', () => {
  const CHAIN =
    /node_modules\/@aws-sdk\/(credential-provider-(node|ini|sso|process|web-identity|login)|nested-clients|token-providers)\/|node_modules\/@smithy\/credential-provider-imds\//;

  test.each(routes.map((r) => r.id))(
    '%s: the default credential chain is left out, the Lambda credentials are in',
    (route) => {
      const inputs = Object.keys(bundles.get(route)!.metafile.inputs);
      expect(inputs.filter((i) => CHAIN.test(i))).toEqual([]);
      expect(inputs).toContain('functions/sdk/lambda-credentials.ts');
      // The container-endpoint provider stays: Lambda may serve credentials that way.
      expect(inputs.some((i) => i.includes('@aws-sdk/credential-provider-http/'))).toBe(true);
    },
  );

  // docs/operations/alarms.md says a trace has no DynamoDB subsegment: true while nothing instruments
  // the SDK. Adding a tracer fails here, and the docs and alarm descriptions must change with it.
  test.each(routes.map((r) => r.id))('%s: nothing instruments the AWS SDK for X-Ray', (route) => {
    const inputs = Object.keys(bundles.get(route)!.metafile.inputs);
    expect(
      inputs.filter((i) => /aws-xray-sdk|@aws-lambda-powertools\/tracer|opentelemetry/.test(i)),
    ).toEqual([]);
    const code = readFileSync(bundles.get(route)!.file, 'utf8');
    expect(code).not.toMatch(/captureAWSv3Client|AWSXRay/);
  });

  /** Built-ins a bundle imports statically: each such import makes Node.js build its facade. */
  const staticBuiltins = (name: string) =>
    [...readFileSync(bundles.get(name)!.file, 'utf8').matchAll(/\bfrom ?["']node:([\w/]+)["']/g)]
      .map((m) => m[1])
      .sort();

  // functions/sdk/builtins/: the built-ins without ES module facades. Only the banner's
  // node:module (createRequire, for CommonJS dependencies) is imported statically.
  test.each(routes.map((r) => r.id))('%s: built-ins come through their stand-ins', (route) => {
    expect(staticBuiltins(route)).toEqual(['module']);
    const inputs = Object.keys(bundles.get(route)!.metafile.inputs);
    expect(inputs.filter((i) => i.startsWith('functions/sdk/builtins/')).length).toBeGreaterThan(5);
  });

  test('the stock build imports them statically (the check above can fail)', () => {
    expect(staticBuiltins(STOCK_BUNDLE)).toEqual(expect.arrayContaining(['crypto', 'fs', 'https']));
  });

  test('the same build without the alias has the chain (the check above can fail)', () => {
    const inputs = Object.keys(bundles.get(STOCK_BUNDLE)!.metafile.inputs);
    expect(inputs.filter((i) => CHAIN.test(i)).length).toBeGreaterThan(5);
  });
});

describe('a GET through each bundle, credentials only in the environment', () => {
  test.each(routes.map((r) => r.id))(
    '%s answers 200 from DynamoDB Local with its file URL signed by those credentials',
    async (route) => {
      const env = lambdaEnv({
        ...CREDENTIALS,
        DYNAMODB_ENDPOINT: table.endpoint,
        S3_ENDPOINT: 'http://127.0.0.1:4569',
      });
      const result = await invoke(route, EVENTS[route], env);
      expect(result.statusCode).toBe(200);
      const { message, data } = JSON.parse(result.body) as {
        message: string;
        data: Record<string, unknown>;
      };
      expect(message).toBe('Ok');
      expect(data.id).toBe(route === 'GetTransaction' ? 1 : 7);
      const field = route === 'GetTransaction' ? 'signature' : 'id_photo';
      const url = new URL(data[field] as string);
      expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^ASIABUNDLETEST\//);
      expect(url.searchParams.get('X-Amz-Security-Token')).toBe('bundle-test-session');
      // The very URL the source presigner makes with the same credentials at the same instant.
      const saved = { ...process.env };
      Object.assign(process.env, CREDENTIALS);
      try {
        const presign = createPresigner({
          region: 'us-east-1',
          bucketName: 'files',
          ttlSeconds: 300,
          endpoint: 'http://127.0.0.1:4569',
          now: () => new Date(FIXED_CLOCK),
        });
        const key = (route === 'GetTransaction' ? TRANSACTION : CUSTOMER)[field] as string;
        expect(data[field]).toBe(await presign(key));
      } finally {
        process.env = saved;
      }
    },
  );
});

describe('signing', () => {
  let server: Server;
  let endpoint: string;
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  beforeAll(async () => {
    // Answers every DynamoDB request with nothing (no item), and keeps what was sent.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body });
        res.setHeader('content-type', 'application/x-amz-json-1.0');
        res.setHeader('x-amzn-requestid', 'capture');
        res.end('{"Count":0,"Items":[],"ScannedCount":0}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('the bundle signs its GetItem and access-state request byte for byte as the same function with the stock SDK chain does', async () => {
    const env = lambdaEnv({ ...CREDENTIALS, DYNAMODB_ENDPOINT: endpoint });
    /** The requests of one GET, by operation. */
    const requestsOf = async (bundle: string) => {
      seen.length = 0;
      const answer = await invoke(bundle, EVENTS.GetTransaction, env);
      expect(answer.statusCode).toBe(404); // the capture server holds nothing
      return Object.fromEntries(
        seen.splice(0).map((r) => [String(r.headers['x-amz-target']), r] as const),
      );
    };
    const ours = await requestsOf('GetTransaction');
    expect(Object.keys(ours).sort()).toEqual([
      'DynamoDB_20120810.GetItem',
      'DynamoDB_20120810.UpdateItem',
    ]);
    // The same function bundled the stock way, its SDK default chain finding the same
    // environment, sends the same GET's requests at the same fixed instant.
    const stock = await requestsOf(STOCK_BUNDLE);
    for (const request of Object.values(ours)) {
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=ASIABUNDLETEST\/20260102\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
      );
      expect(request.headers['x-amz-security-token']).toBe('bundle-test-session');
    }
    expect(ours).toEqual(stock);
  });
});

describe('no credentials in the environment', () => {
  test('init fails with a message naming what is missing, and the stack maps to the source', async () => {
    const env = lambdaEnv({ DYNAMODB_ENDPOINT: table.endpoint });
    const failure = await invoke('GetTransaction', EVENTS.GetTransaction, env).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).not.toBe(0);
    expect(failure?.stderr).toContain(
      'MissingCredentialsError]: No AWS credentials in the environment: this function reads AWS_ACCESS_KEY_ID',
    );
    // Frames point into the minified bundle; the rebuilt map puts them back on source lines.
    const trace = failure!.stderr.slice(failure!.stderr.indexOf('\n    at '));
    expect(trace).toMatch(/index\.mjs:\d+:\d+/);
    const { code, map } = await rebuild('GetTransaction');
    expect(code).toBe(readFileSync(bundles.get('GetTransaction')!.file, 'utf8'));
    const mapped = mapStackTrace(trace, map).split('\n')[1];
    const source = readFileSync(join(PROJECT_ROOT, 'functions/sdk/lambda-credentials.ts'), 'utf8');
    const throwLine =
      source.split('\n').findLastIndex((l) => l.includes('throw new MissingCredentialsError')) + 1;
    expect(mapped).toContain(`functions/sdk/lambda-credentials.ts:${throwLine}:`);
  });
});
