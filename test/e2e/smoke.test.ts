/**
 * `npm run smoke` (commands/smoke/checks.ts, bin/smoke.ts) against the local rig with its demo data,
 * where every promise must hold, and against a second gateway in front of the same handlers made
 * to break one promise, where the smoke must fail naming it. Never a token in the output.
 */
import { MANY_READS } from '../support/budgets.ts';
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AdminAddUserToGroupCommand,
  AdminGetUserCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { CUSTOMER_READERS_GROUP } from '../../core/groups.ts';
import { DEMO_PASSWORD, cognitoClient, createUser } from '../../local/cognito/user-pool.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { importHandler, startGateway, type Gateway } from '../../local/gateway/gateway.ts';
import { startLocalRig, type LocalRig } from '../../local/rig/rig.ts';
import { testRigOptions } from '../support/shared-dynamodb.ts';
import { BrokenPromise, runSmoke } from '../../commands/smoke/checks.ts';

const run = promisify(execFile);

let dataDir: string;
let rig: LocalRig;
/** The same handlers and user pool, but every function answer loses one SPEC 4 header. */
let broken: Gateway;
const tokens = { user: '', reader: '' };

/** The functions' own log lines (one per request, on stdout), kept out of the test report. */
const functionLines: string[] = [];

beforeAll(async () => {
  const write = process.stdout.write.bind(process.stdout);
  jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array) => {
    const text = String(chunk);
    if (text.startsWith('{"timestamp"')) return functionLines.push(text) > 0;
    return write(chunk);
  }) as typeof process.stdout.write);
  dataDir = mkdtempSync(join(tmpdir(), 'smoke-test-'));
  rig = await startLocalRig({
    ...testRigOptions(dataDir),
    env: { ...process.env, ...MANY_READS },
  });
  tokens.user = await rig.tokenFor('teller@example.com');
  tokens.reader = await rig.tokenFor('compliance@example.com');
  broken = await startGateway({
    port: 0,
    authorizer: {
      issuer: rig.cognito.issuer,
      audience: [rig.cognito.clientId],
      jwksUri: `${rig.cognito.issuer}/.well-known/jwks.json`,
    },
    openApiFile: false,
    log: () => undefined,
    loadHandler: async (route) => {
      const handler = await importHandler(route);
      return async (event, context) => {
        const result = (await handler(event, context)) as { headers: Record<string, string> };
        const { 'X-Content-Type-Options': _dropped, ...headers } = result.headers;
        return { ...result, headers };
      };
    },
  });
}, 120_000);

afterAll(async () => {
  jest.restoreAllMocks();
  await broken?.stop();
  await rig?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `npm run smoke -- <url>` as a user runs it, with only the given SMOKE_ variables. */
async function smokeCommand(
  url: string,
  smokeEnv: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(SMOKE_|AWS_|NODE_OPTIONS$)/.test(key)) env[key] = value;
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'smoke', '--', url], {
      cwd: PROJECT_ROOT,
      env: { ...env, ...smokeEnv },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('every promise holds on the local rig, the known demo records included', async () => {
  const kept = await runSmoke({
    apiUrl: rig.apiUrl,
    userToken: tokens.user,
    readerToken: tokens.reader,
    transactionId: '1',
    customerId: '1',
  });
  // Not vacuous: the authorizer's 401s, the functions' 400/403/404 and the three known reads;
  // SPEC 10's empty pages, refusals and 404, and customer 1's transactions over two pages with
  // its cursor altered and misused.
  expect(kept).toHaveLength(6 + 6 + 1 + 3 + (2 + 3 + 2 + 1) + 4);
  expect(kept.filter((promise) => promise.includes('cursor'))).toHaveLength(3);
  expect(kept.join('\n')).toMatch(/401[\s\S]*400[\s\S]*404[\s\S]*403[\s\S]*200/);
  // The smoke's requests are followed like any other: both ids on every function line.
  expect(functionLines.length).toBeGreaterThanOrEqual(10);
  for (const line of functionLines) {
    expect(JSON.parse(line)).toMatchObject({
      requestId: expect.any(String),
      apiRequestId: expect.any(String),
    });
  }
});

test('a gateway that drops X-Content-Type-Options fails the smoke, naming that promise', async () => {
  const failure = await runSmoke({
    apiUrl: broken.url,
    userToken: tokens.user,
    readerToken: tokens.reader,
  }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(BrokenPromise);
  expect((failure as BrokenPromise).promise).toBe(
    'SPEC 4: every response has x-content-type-options: nosniff',
  );
  expect((failure as BrokenPromise).seen).toMatch(/no such header/);
});

test('a reader token given as the user token is refused before it could hide a missing 403', async () => {
  const failure = await runSmoke({
    apiUrl: rig.apiUrl,
    userToken: tokens.reader,
    readerToken: tokens.reader,
  }).catch((error: unknown) => error);
  expect((failure as BrokenPromise).promise).toMatch(/outside customer-readers/);
});

test('`npm run smoke`: signs in with username and password, exits 0; exits 1 naming the broken promise; prints no token', async () => {
  const secrets = rig.cognito.demoTotpSecrets;
  const signIn = {
    SMOKE_USERNAME: 'teller@example.com',
    SMOKE_PASSWORD: DEMO_PASSWORD,
    SMOKE_READER_USERNAME: 'compliance@example.com',
    SMOKE_READER_PASSWORD: DEMO_PASSWORD,
    // The demo users have TOTP apps: the smoke answers their challenge with these secrets.
    SMOKE_TOTP_SECRET: secrets['teller@example.com']!,
    SMOKE_READER_TOTP_SECRET: secrets['compliance@example.com']!,
    SMOKE_TOTP_FILE: join(dataDir, 'smoke-totp.json'),
    SMOKE_CLIENT_ID: rig.cognito.clientId,
    SMOKE_COGNITO_ENDPOINT: rig.cognito.endpoint,
    SMOKE_REGION: 'us-east-1',
    SMOKE_TRANSACTION_ID: '1',
    SMOKE_CUSTOMER_ID: '1',
  };
  const good = await smokeCommand(rig.apiUrl, signIn);
  expect({ code: good.code, stderr: good.stderr }).toEqual({ code: 0, stderr: '' });
  expect(good.stdout).toMatch(/all 28 promises kept\n$/);

  const bad = await smokeCommand(broken.url, {
    SMOKE_TOKEN: tokens.user,
    SMOKE_READER_TOKEN: tokens.reader,
  });
  expect(bad.code).toBe(1);
  expect(bad.stdout).toContain(
    'BROKEN  SPEC 4: every response has x-content-type-options: nosniff',
  );

  const missing = await smokeCommand(rig.apiUrl, {});
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/SMOKE_TOKEN/);

  // Without the secret, a user with a TOTP app cannot be signed in: the smoke says what to set.
  const { SMOKE_TOTP_SECRET: _secret, ...noSecret } = signIn;
  const noCode = await smokeCommand(rig.apiUrl, noSecret);
  expect(noCode.code).toBe(2);
  expect(noCode.stderr).toBe(
    'smoke: could not sign in SMOKE_USERNAME: the user has a TOTP app enrolled: ' +
      'set SMOKE_TOTP_SECRET to its secret, or SMOKE_TOKEN\n',
  );

  const output = [good, bad, missing, noCode].map((r) => r.stdout + r.stderr).join('\n');
  for (const token of Object.values(tokens)) expect(output).not.toContain(token.split('.')[1]);
  expect(output).not.toContain(DEMO_PASSWORD);
  for (const secret of Object.values(secrets)) expect(output).not.toContain(secret);
}, 60_000);

test('`npm run smoke` with users who have no TOTP yet: it enrols each (MFA_SETUP), keeps the secrets, and the next run signs in with codes', async () => {
  const admin = cognitoClient(rig.cognito.endpoint);
  const users = { user: 'smoke-teller@example.com', reader: 'smoke-reader@example.com' };
  try {
    for (const email of Object.values(users))
      await createUser(admin, rig.cognito.userPoolId, email);
    await admin.send(
      new AdminAddUserToGroupCommand({
        UserPoolId: rig.cognito.userPoolId,
        Username: users.reader,
        GroupName: CUSTOMER_READERS_GROUP,
      }),
    );
    const file = join(dataDir, 'smoke-enrol-totp.json');
    const smokeEnv = {
      SMOKE_USERNAME: users.user,
      SMOKE_PASSWORD: DEMO_PASSWORD,
      SMOKE_READER_USERNAME: users.reader,
      SMOKE_READER_PASSWORD: DEMO_PASSWORD,
      SMOKE_CLIENT_ID: rig.cognito.clientId,
      SMOKE_COGNITO_ENDPOINT: rig.cognito.endpoint,
      SMOKE_REGION: 'us-east-1',
      SMOKE_TOTP_FILE: file,
    };

    const first = await smokeCommand(rig.apiUrl, smokeEnv);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    for (const who of ['SMOKE_USERNAME', 'SMOKE_READER_USERNAME'])
      expect(first.stdout).toContain(
        `smoke: enrolled a TOTP app for ${who}; its secret is kept in ${file}`,
      );
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Object.keys(kept).sort()).toEqual(
      Object.values(users)
        .map((u) => `${rig.cognito.clientId}/${u}`)
        .sort(),
    );
    expect(statSync(file).mode & 0o077).toBe(0);
    for (const email of Object.values(users)) {
      const got = await admin.send(
        new AdminGetUserCommand({ UserPoolId: rig.cognito.userPoolId, Username: email }),
      );
      expect(got.UserMFASettingList).toEqual(['SOFTWARE_TOKEN_MFA']);
    }

    // The next run answers SOFTWARE_TOKEN_MFA with codes from the kept secrets.
    const next = await smokeCommand(rig.apiUrl, smokeEnv);
    expect({ code: next.code, stderr: next.stderr }).toEqual({ code: 0, stderr: '' });
    expect(next.stdout).not.toContain('enrolled');
    expect(next.stdout).toMatch(/promises kept/);
    for (const secret of Object.values(kept))
      expect(first.stdout + next.stdout).not.toContain(secret);
  } finally {
    admin.destroy();
  }
}, 90_000);
