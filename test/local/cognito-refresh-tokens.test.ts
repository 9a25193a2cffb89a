/**
 * Issue 30: the local Cognito keeps a bounded number of refresh tokens per user
 * (local/cognito/refresh-tokens.ts), against the cognito-local the local rig runs
 * (local/cognito/user-pool.ts): after many sign-ins the pool's file holds the newest ones only, and the
 * newest still refreshes; a file written before the bound is pruned at start.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InitiateAuthCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import {
  DEMO_PASSWORD,
  cognitoClient,
  createUser,
  signInTokens,
  startCognito,
  type LocalCognito,
} from '../../local/cognito/user-pool.ts';
import { MAX_REFRESH_TOKENS_PER_USER } from '../../local/cognito/refresh-tokens.ts';

const EMAIL = 'refresh-bound@example.com';
const SIGN_INS = 60;

let dataDir: string;
let cognito: LocalCognito;
let client: CognitoIdentityProviderClient;

async function start(): Promise<void> {
  cognito = await startCognito({ port: 0, dataDir });
  client = cognitoClient(cognito.endpoint);
}

async function stop(): Promise<void> {
  client?.destroy();
  await cognito?.stop();
}

/** The user's TOTP secret, enrolled at their first sign-in (beforeAll): MFA is required. */
let totpSecret: string | undefined;

/** A sign-in (password and TOTP code); its refresh token. */
async function signIn(): Promise<string> {
  const tokens = await signInTokens({
    client,
    clientId: cognito.clientId,
    username: EMAIL,
    password: DEMO_PASSWORD,
    totpSecret,
    enrol: true,
  });
  totpSecret ??= tokens.enrolledSecret;
  return tokens.refreshToken;
}

async function refresh(refreshToken: string): Promise<string> {
  const result = await client.send(
    new InitiateAuthCommand({
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: cognito.clientId,
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    }),
  );
  return result.AuthenticationResult!.AccessToken!;
}

/** The pool's file as cognito-local wrote it, and the refresh tokens it keeps for the user. */
const poolFile = () => join(dataDir, 'db', `${cognito.userPoolId}.json`);
type PoolFile = {
  Users: Record<
    string,
    { Attributes: { Name: string; Value: string }[] } & Record<string, unknown>
  >;
};
function storedTokens(): string[] {
  const pool = JSON.parse(readFileSync(poolFile(), 'utf8')) as PoolFile;
  const user = Object.values(pool.Users).find((u) =>
    u.Attributes.some((a) => a.Name === 'email' && a.Value === EMAIL),
  )!;
  return user.RefreshTokens as string[];
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cognito-refresh-'));
  await start();
  await createUser(client, cognito.userPoolId, EMAIL);
  await signIn(); // the first sign-in enrols the user's TOTP
}, 60_000);

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test(`after ${SIGN_INS} sign-ins the newest ${MAX_REFRESH_TOKENS_PER_USER} refresh tokens are kept, and the newest refreshes`, async () => {
  const issued: string[] = [];
  for (let i = 0; i < SIGN_INS; i += 1) issued.push(await signIn());
  expect(storedTokens()).toEqual(issued.slice(-MAX_REFRESH_TOKENS_PER_USER));
  expect(await refresh(issued.at(-1)!)).toEqual(expect.any(String));
  // The oldest kept still works; one dropped is refused as a revoked token is.
  expect(await refresh(issued.at(-MAX_REFRESH_TOKENS_PER_USER)!)).toEqual(expect.any(String));
  await expect(refresh(issued[0]!)).rejects.toMatchObject({ name: 'NotAuthorizedException' });
}, 60_000);

test('sign-ins at once: none loses its token to another', async () => {
  const issued = await Promise.all(Array.from({ length: 10 }, () => signIn()));
  for (const token of issued) expect(await refresh(token)).toEqual(expect.any(String));
  // cognito-local writes the file once per save, not in order: at once, the last write to end
  // may be an earlier save's. The next save writes what it holds.
  issued.push(await signIn());
  const stored = storedTokens();
  expect(stored).toHaveLength(MAX_REFRESH_TOKENS_PER_USER);
  expect(issued.filter((token) => !stored.includes(token))).toEqual([]);
}, 60_000);

test('a pool file with more tokens (written before the bound) is pruned at start', async () => {
  await stop();
  const pool = JSON.parse(readFileSync(poolFile(), 'utf8')) as PoolFile;
  const user = Object.values(pool.Users).find((u) =>
    u.Attributes.some((a) => a.Name === 'email' && a.Value === EMAIL),
  )!;
  const old = Array.from({ length: 100 }, (_, i) => `old-token-${i}`);
  user.RefreshTokens = [...old, ...(user.RefreshTokens as string[])];
  writeFileSync(poolFile(), JSON.stringify(pool));
  const kept = (user.RefreshTokens as string[]).slice(-MAX_REFRESH_TOKENS_PER_USER);

  await start();
  expect(storedTokens()).toEqual(kept);
  expect(await refresh(kept.at(-1)!)).toEqual(expect.any(String));
}, 60_000);
