/**
 * `npm run --silent token -- --stage <name> <user>` (bin/token.ts) as an operator runs it against
 * a deployed stage: the user pool client from the stack's outputs (a fake CloudFormation), the
 * sign-in against a Cognito that requires MFA as a stage's does (the local one, reached through
 * AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER), the password from TOKEN_PASSWORD and the code
 * from --otp. Every refusal is one line on stderr, nothing on stdout.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import {
  DEMO_PASSWORD,
  cognitoClient,
  createUser,
  signInTokens,
  startCognito,
  type LocalCognito,
} from '../../local/cognito/user-pool.ts';
import { totpCode } from '../../sign-in/totp.ts';
import { startFakeControlPlane } from '../support/fake-control-plane.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';

const ENROLLED = 'enrolled@example.com';
const NOT_ENROLLED = 'first-time@example.com';

let dir: string;
let cognito: LocalCognito;
let client: CognitoIdentityProviderClient;
let aws: Awaited<ReturnType<typeof startFakeControlPlane>>;
let secret: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'token-stage-'));
  cognito = await startCognito({ port: 0, dataDir: join(dir, 'cognito') });
  client = cognitoClient(cognito.endpoint);
  for (const user of [ENROLLED, NOT_ENROLLED]) await createUser(client, cognito.userPoolId, user);
  const enrolled = await signInTokens({
    client,
    clientId: cognito.clientId,
    username: ENROLLED,
    password: DEMO_PASSWORD,
    enrol: true,
  });
  secret = enrolled.enrolledSecret!;
  aws = await startFakeControlPlane();
  aws.stacks.set('CurrencyExchangeReadApi-dev', {
    UserPoolId: cognito.userPoolId,
    UserPoolClientId: cognito.clientId,
  });
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await cognito?.stop();
  await aws?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The command as an operator runs it, stdin not a terminal (so it asks nothing). */
function token(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/token.ts', ...args], {
    cwd: PROJECT_ROOT,
    env: {
      ...CLEAN_ENV,
      LOCAL_DATA_DIR: join(dir, 'no-local-rig'),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_CONFIG_FILE: join(dir, 'none'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
      AWS_ENDPOINT_URL_CLOUDFORMATION: aws.endpoint,
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: cognito.endpoint,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  );
}

const withPassword = { TOKEN_PASSWORD: DEMO_PASSWORD };

test('--stage: the stack’s user pool client, the password from TOKEN_PASSWORD, the code from --otp: an access token', async () => {
  const asked = aws.stacksAsked.length;
  const result = await token(['--stage', 'dev', ENROLLED, '--otp', totpCode(secret)], withPassword);
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  const accessToken = result.stdout.trim();
  const claims = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as {
    token_use: string;
    client_id: string;
  };
  expect(claims).toMatchObject({ token_use: 'access', client_id: cognito.clientId });
  expect(aws.stacksAsked.slice(asked)).toEqual(['CurrencyExchangeReadApi-dev']);
}, 60_000);

test.each([
  [
    'a wrong code',
    () => ['--stack', 'CurrencyExchangeReadApi-dev', ENROLLED, '--otp', wrongCode()],
    withPassword,
    'token: the code was not accepted (CodeMismatchException): codes change every 30 s\n',
  ],
  [
    'a wrong password',
    () => ['--stage', 'dev', ENROLLED, '--otp', totpCode(secret)],
    { TOKEN_PASSWORD: 'not-the-password' },
    'token: the username or password was not accepted (NotAuthorizedException)\n',
  ],
  [
    'no code and no terminal to ask on',
    () => ['--stage', 'dev', ENROLLED],
    withPassword,
    'token: give --otp <code>, or run on a terminal to be asked for it\n',
  ],
  [
    'no password and no terminal to ask on',
    () => ['--stage', 'dev', ENROLLED, '--otp', '123456'],
    {},
    'token: set TOKEN_PASSWORD, or run on a terminal to be asked for the password\n',
  ],
  [
    'a user who has not enrolled a TOTP app yet',
    () => ['--stage', 'dev', NOT_ENROLLED, '--otp', '123456'],
    withPassword,
    `token: "${NOT_ENROLLED}" has not finished their first sign-in (Cognito asks for MFA_SETUP): ` +
      'sign in once on the staff page to set a password and enrol an authenticator app, then run this again\n',
  ],
  [
    'a stage that is not deployed',
    () => ['--stage', 'nowhere', ENROLLED, '--otp', '123456'],
    withPassword,
    /^token: could not read stack CurrencyExchangeReadApi-nowhere's outputs: ValidationError: .*\n$/,
  ],
  [
    '--code against a stage',
    () => ['--stage', 'dev', '--code', ENROLLED],
    withPassword,
    "token: --code is for the local demo users: a stage's codes are on its users' phones\n",
  ],
])(
  '%s: one line on stderr, nothing on stdout, a non-zero exit',
  async (_name, args, env, message) => {
    const result = await token(args(), env);
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    if (typeof message === 'string') expect(result.stderr).toBe(message);
    else expect(result.stderr).toMatch(message);
  },
  60_000,
);

/** A code of the right form that is none of those accepted now (the previous, this, the next). */
function wrongCode(): string {
  const near = [-30_000, 0, 30_000].map((d) => totpCode(secret, Date.now() + d));
  for (let n = 0; ; n += 1) {
    const code = String(n).padStart(6, '0');
    if (!near.includes(code)) return code;
  }
}
