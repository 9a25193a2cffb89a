/**
 * The whole local rig as `npm start` runs it (free ports, a temp data directory, DynamoDB in
 * memory): demo data and users, the deployed handlers behind the gateway, the token command, and
 * a stop() that leaves no process behind.
 */
import { MANY_READS } from '../support/budgets.ts';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { DEMO_IMAGE_FILE } from '../../local/s3/s3-server.ts';
import { startLocalRig, type LocalRig } from '../../local/rig/rig.ts';
import { customer, line, transaction } from '../fixtures.ts';
import type { LocalState } from '../../local/rig/state.ts';
import { FUNCTION_ENV, displayTimeEnv } from '../../core/function-env.ts';
import { parseZoneOffsets } from '../../core/times.ts';
import { createContract } from '../support/contract.ts';

const run = promisify(execFile);

let dataDir: string;
let rig: LocalRig;

/** `npm run --silent token -- <args>` against this test's rig. */
async function tokenCommand(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return npmRun('token', ...args);
}

/** `npm run --silent <script> -- <args>` against this test's rig. */
async function npmRun(
  script: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOCAL_DATA_DIR: dataDir };
  delete env.NODE_OPTIONS; // jest's --experimental-vm-modules is not for the child
  delete env.TABLE_NAME; // set in this worker by other tests' handlers; the import refuses it
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', script, '--', ...args], {
      cwd: PROJECT_ROOT,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const contract = createContract();

/** GET through the rig; every answer is checked against openapi.yaml before the test sees it. */
async function get(path: string, token?: string): Promise<Response> {
  const res = await fetch(
    `${rig.apiUrl}${path}`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  const body = await res.text();
  expect(
    contract.validate('GET', path, { status: res.status, headers: res.headers, body }),
  ).toEqual([]);
  return new Response(body, { status: res.status, headers: res.headers });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'local-rig-test-'));
  rig = await startLocalRig({
    port: 0,
    dataDir,
    inMemory: true,
    env: { ...process.env, ...MANY_READS },
    log: () => undefined,
  });
}, 90_000);

afterAll(async () => {
  await rig?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the demo data was imported on first start, and state.json tells where everything is', () => {
  expect(rig.seeded).toMatchObject({
    transactions: expect.any(Number),
    customers: expect.any(Number),
  });
  expect(rig.seeded!.transactions).toBeGreaterThanOrEqual(1);
  expect(rig.seeded!.customers).toBeGreaterThanOrEqual(1);
  const state = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')) as LocalState;
  expect(state).toMatchObject({
    pid: process.pid,
    apiUrl: rig.apiUrl,
    tableName: 'currency-exchange',
    bucketName: 'currency-exchange-files',
    importBucketName: 'currency-exchange-imports',
    dynamoDbEndpoint: rig.dynamoDbEndpoint,
    s3Endpoint: rig.s3Endpoint,
    cognito: {
      endpoint: rig.cognito.endpoint,
      userPoolId: rig.cognito.userPoolId,
      clientId: rig.cognito.clientId,
    },
  });
  // The zone's table, for `npm run import` to read times with instead of working it out again.
  expect(state.displayTimeZoneOffsets).toBe(
    displayTimeEnv(state.displayTimeZone)[FUNCTION_ENV.displayTimeZoneOffsets],
  );
  expect(parseZoneOffsets(state.displayTimeZoneOffsets!, state.displayTimeZone)).toBeDefined();
});

test('GET /transactions/1 for the teller, with a signature URL that works', async () => {
  const res = await get('/transactions/1', await rig.tokenFor('teller@example.com'));
  expect(res.status).toBe(200);
  expect(res.headers.get('apigw-requestid')).toBeTruthy();
  const body = (await res.json()) as { message: string; data: { id: number; signature: string } };
  expect(body.message).toBe('Ok');
  expect(body.data.id).toBe(1);
  const image = await fetch(body.data.signature);
  expect(image.status).toBe(200);
  expect(image.headers.get('content-type')).toBe('image/png');
});

test('GET /customers/1 for compliance, with an ID photo URL that works', async () => {
  const res = await get('/customers/1', await rig.tokenFor('compliance@example.com'));
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { id: number; id_photo: string } };
  expect(body.data.id).toBe(1);
  expect((await fetch(body.data.id_photo)).status).toBe(200);
});

test('GET /customers/1 for the teller (not in customer-readers): 403', async () => {
  const res = await get('/customers/1', await rig.tokenFor('teller@example.com'));
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({ message: 'Forbidden', data: null });
});

test('no token: the authorizer answers 401; an ID token passes it but the function refuses it', async () => {
  const none = await get('/transactions/1');
  expect(none.status).toBe(401);
  expect(await none.text()).toBe('{"message":"Unauthorized"}');
  const id = await get('/transactions/1', await rig.tokenFor('teller@example.com', 'id'));
  expect(id.status).toBe(401);
});

describe('npm run --silent token', () => {
  test('prints only an access token, which the API accepts', async () => {
    const { code, stdout } = await tokenCommand('compliance@example.com');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n?$/);
    const token = stdout.trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({
      token_use: 'access',
      client_id: rig.cognito.clientId,
      'cognito:groups': ['customer-readers'],
    });
    expect((await get('/customers/1', token)).status).toBe(200);
  });

  test('--code prints only a demo user’s current TOTP code, the one their authenticator shows', async () => {
    const before = Date.now();
    const { code, stdout, stderr } = await tokenCommand('--code', 'teller@example.com');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^\d{6}\n$/);
    // The code of some instant while the command ran (it may have crossed a 30 s step).
    const during = new Set<string>();
    for (let at = before; at <= Date.now() + 1000; at += 1000)
      during.add(rig.currentCode('teller@example.com', at));
    expect(during).toContain(stdout.trim());
    expect(rig.currentCode('compliance@example.com', before)).not.toBe(
      rig.currentCode('teller@example.com', before),
    );
  });

  test('an unknown user: nothing on stdout, a clear error, a non-zero exit', async () => {
    const { code, stdout, stderr } = await tokenCommand('nobody@example.com');
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain('unknown user "nobody@example.com"');
    expect(stderr).toContain('teller@example.com');
  });
});

describe('npm run files -- put <dir>: records import with their files, without a warning', () => {
  test('the files go in under their paths, and the import that names them warns of none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'files-put-'));
    const files = {
      'signatures/t 701.png': readFileSync(DEMO_IMAGE_FILE),
      'attachments/receipt 701.pdf': Buffer.from('%PDF-1.4 receipt'),
      'id-photos/c-701.png': readFileSync(DEMO_IMAGE_FILE),
    };
    for (const [key, bytes] of Object.entries(files)) {
      mkdirSync(join(dir, key.split('/')[0]!), { recursive: true });
      writeFileSync(join(dir, key), bytes);
    }
    const put = await npmRun('files', 'put', dir);
    expect(put).toEqual({
      code: 0,
      stdout: `Put 3 files into the local rig's files bucket (${rig.bucketName})\n`,
      stderr: '',
    });
    const file = join(dir, 'records.jsonl');
    writeFileSync(
      file,
      `${line('transaction', transaction({ id: 701, signature: 'signatures/t 701.png', attachment: 'attachments/receipt 701.pdf' }))}\n` +
        `${line('customer', customer({ id: 701, id_photo: 'id-photos/c-701.png' }))}\n`,
    );
    const imported = await npmRun('import', file);
    expect({ code: imported.code, warned: /warning/.test(imported.stderr) }).toEqual({
      code: 0,
      warned: false,
    });
    const token = (await tokenCommand('compliance@example.com')).stdout.trim();
    const customerData = (await (await get('/customers/701', token)).json()) as {
      data: { id_photo: string };
    };
    expect((await fetch(customerData.data.id_photo)).status).toBe(200);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  test('a path outside the three prefixes: nothing put, and why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'files-put-'));
    mkdirSync(join(dir, 'signatures'));
    mkdirSync(join(dir, 'photos'));
    writeFileSync(join(dir, 'signatures', 'ok.png'), 'x');
    writeFileSync(join(dir, 'photos', 'c-9.png'), 'x');
    expect(await npmRun('files', 'put', dir)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'files: photos/c-9.png: not under signatures/, attachments/, id-photos/, where records name their files; nothing was put\n',
    });
    rmSync(dir, { recursive: true, force: true });
  });
});

test('stop() stops every server and child process, and the token command then says so', async () => {
  const port = new URL(rig.dynamoDbEndpoint).port;
  const javaRunning = () => {
    try {
      return (
        execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.* -port ${port} `])
          .toString()
          .trim() !== ''
      );
    } catch {
      return false;
    }
  };
  expect(javaRunning()).toBe(true);
  await rig.stop();
  expect(javaRunning()).toBe(false);
  for (const endpoint of [rig.apiUrl, rig.cognito.endpoint, rig.s3Endpoint, rig.dynamoDbEndpoint]) {
    await expect(fetch(endpoint)).rejects.toThrow();
  }
  expect(existsSync(join(dataDir, 'state.json'))).toBe(false);
  const { code, stdout, stderr } = await tokenCommand('teller@example.com');
  expect(code).not.toBe(0);
  expect(stdout).toBe('');
  expect(stderr).toContain('the local rig is not running');
});
