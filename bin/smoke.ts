/**
 * `npm run smoke -- <api-url>`: checks a deployment keeps the contract (commands/smoke/checks.ts) and exits
 * non-zero on the first broken promise, naming it.
 *
 * Tokens, from the environment (never printed):
 * - `SMOKE_TOKEN` (a user outside customer-readers) and `SMOKE_READER_TOKEN` (a customer-reader):
 *   access tokens, e.g. from `npm run token -- --stage <name> <user>`; or
 * - `SMOKE_USERNAME`/`SMOKE_PASSWORD` and `SMOKE_READER_USERNAME`/`SMOKE_READER_PASSWORD` with
 *   `SMOKE_CLIENT_ID` (the stack's UserPoolClientId output): exchanged here through Cognito
 *   InitiateAuth USER_PASSWORD_AUTH, the flow the app client allows (lib/identity.ts), and the
 *   TOTP second factor every user passes (MFA is required): a user without a TOTP yet enrols one
 *   here (MFA_SETUP: AssociateSoftwareToken and VerifySoftwareToken with the challenge's Session),
 *   and its secret is kept in `SMOKE_TOTP_FILE` (default `.local/smoke-totp.json`, readable by
 *   its owner only) for the next runs, which answer SOFTWARE_TOKEN_MFA with a code from it;
 *   `SMOKE_TOTP_SECRET` and `SMOKE_READER_TOTP_SECRET` give a secret kept elsewhere (a CI
 *   secret). The region is `SMOKE_REGION`, else `AWS_REGION`, else the one in the API URL.
 * Optional: `SMOKE_TRANSACTION_ID`, `SMOKE_CUSTOMER_ID` (records that exist in this deployment);
 * `SMOKE_COGNITO_ENDPOINT` (a local Cognito, for the tests).
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { PROJECT_ROOT } from '../core/project-root.ts';
import { signInWithTotp, UnansweredChallenge } from '../sign-in/flow.ts';
import { totpCode } from '../sign-in/totp.ts';
import { BrokenPromise, runSmoke } from '../commands/smoke/checks.ts';

const env = process.env;
const out = (line: string) => process.stdout.write(`${line}\n`);

function usage(message: string): never {
  process.stderr.write(
    `smoke: ${message}\n` +
      'usage: npm run smoke -- <api-url>\n' +
      '  tokens: SMOKE_TOKEN and SMOKE_READER_TOKEN, or SMOKE_USERNAME, SMOKE_PASSWORD,\n' +
      '  SMOKE_READER_USERNAME, SMOKE_READER_PASSWORD and SMOKE_CLIENT_ID (see docs/operations.md)\n',
  );
  process.exit(2);
}

const [apiUrl, ...rest] = process.argv.slice(2);
if (!apiUrl || rest.length || !/^https?:\/\/[^/]/.test(apiUrl)) usage('give the API URL');

/** Where the TOTP secrets the smoke enrolled are kept, by app client and username. */
const totpFile = resolve(env.SMOKE_TOTP_FILE || join(PROJECT_ROOT, '.local', 'smoke-totp.json'));

function keptSecrets(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(totpFile, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

function keepSecret(key: string, secret: string): void {
  mkdirSync(dirname(totpFile), { recursive: true });
  const secrets = { ...keptSecrets(), [key]: secret };
  writeFileSync(totpFile, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  chmodSync(totpFile, 0o600); // a file from before keeps its mode otherwise
}

async function signIn(who: 'SMOKE' | 'SMOKE_READER'): Promise<string> {
  const username = env[`${who}_USERNAME`];
  const password = env[`${who}_PASSWORD`];
  const clientId = env.SMOKE_CLIENT_ID;
  if (!username || !password || !clientId) {
    usage(`set ${who}_TOKEN, or ${who}_USERNAME, ${who}_PASSWORD and SMOKE_CLIENT_ID`);
  }
  const region =
    env.SMOKE_REGION ||
    env.AWS_REGION ||
    /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(apiUrl!)?.[1] ||
    usage("set SMOKE_REGION (the user pool's region)");
  // The sign-in calls are unsigned (the SDK resolves no AWS credentials for them): the password
  // and the TOTP code are the credentials.
  const client = new CognitoIdentityProviderClient({
    region,
    ...(env.SMOKE_COGNITO_ENDPOINT ? { endpoint: env.SMOKE_COGNITO_ENDPOINT } : {}),
  });
  const key = `${clientId}/${username}`;
  const secret = env[`${who}_TOTP_SECRET`] || keptSecrets()[key];
  try {
    const tokens = await signInWithTotp({
      client,
      clientId: clientId!,
      username: username!,
      password: password!,
      ...(secret ? { code: () => totpCode(secret) } : {}),
      enrol: true,
      deviceName: 'npm run smoke',
    });
    if (tokens.enrolledSecret) {
      keepSecret(key, tokens.enrolledSecret);
      out(`smoke: enrolled a TOTP app for ${who}_USERNAME; its secret is kept in ${totpFile}`);
    }
    return tokens.accessToken;
  } catch (error) {
    const e = error as Error;
    const why = !(e instanceof UnansweredChallenge)
      ? `${e.name}: ${e.message}`
      : e.challenge === 'SOFTWARE_TOKEN_MFA'
        ? `the user has a TOTP app enrolled: set ${who}_TOTP_SECRET to its secret, or ${who}_TOKEN`
        : `Cognito asked for ${e.challenge} (a new user must set a permanent password first)`;
    process.stderr.write(`smoke: could not sign in ${who}_USERNAME: ${why}\n`);
    process.exit(2);
  } finally {
    client.destroy();
  }
}

const userToken = env.SMOKE_TOKEN || (await signIn('SMOKE'));
const readerToken = env.SMOKE_READER_TOKEN || (await signIn('SMOKE_READER'));

out(`smoke: ${apiUrl}`);
try {
  const kept = await runSmoke({
    apiUrl: apiUrl!,
    userToken,
    readerToken,
    transactionId: env.SMOKE_TRANSACTION_ID || undefined,
    customerId: env.SMOKE_CUSTOMER_ID || undefined,
    onPass: (promise) => out(`ok      ${promise}`),
  });
  const skipped = [
    env.SMOKE_TRANSACTION_ID ? '' : 'SMOKE_TRANSACTION_ID',
    env.SMOKE_CUSTOMER_ID ? '' : 'SMOKE_CUSTOMER_ID',
  ].filter(Boolean);
  out(
    `smoke: all ${kept.length} promises kept` +
      (skipped.length ? ` (known records not checked: set ${skipped.join(' and ')})` : ''),
  );
} catch (error) {
  if (!(error instanceof BrokenPromise)) throw error;
  out(`BROKEN  ${error.promise}`);
  out(`        ${error.seen}`);
  process.exitCode = 1;
}
