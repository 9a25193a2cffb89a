/**
 * `npm run smoke -- <api-url>`: checks a deployment keeps the contract (smoke/checks.ts) and exits
 * non-zero on the first broken promise, naming it.
 *
 * Tokens, from the environment (never printed):
 * - `SMOKE_TOKEN` (a user outside customer-readers) and `SMOKE_READER_TOKEN` (a customer-reader):
 *   access tokens, e.g. from `aws cognito-idp initiate-auth`; or
 * - `SMOKE_USERNAME`/`SMOKE_PASSWORD` and `SMOKE_READER_USERNAME`/`SMOKE_READER_PASSWORD` with
 *   `SMOKE_CLIENT_ID` (the stack's UserPoolClientId output): exchanged here through Cognito
 *   InitiateAuth USER_PASSWORD_AUTH, the flow the app client allows (lib/identity.ts). The region
 *   is `SMOKE_REGION`, else `AWS_REGION`, else the one in the API URL.
 * Optional: `SMOKE_TRANSACTION_ID`, `SMOKE_CUSTOMER_ID` (records that exist in this deployment);
 * `SMOKE_COGNITO_ENDPOINT` (a local Cognito, for the tests).
 */
import {
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { BrokenPromise, runSmoke } from '../smoke/checks';

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
  // InitiateAuth is an unsigned call (the SDK resolves no AWS credentials for it): the
  // password is the credential.
  const client = new CognitoIdentityProviderClient({
    region,
    ...(env.SMOKE_COGNITO_ENDPOINT ? { endpoint: env.SMOKE_COGNITO_ENDPOINT } : {}),
  });
  try {
    const result = await client.send(
      new InitiateAuthCommand({
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: clientId,
        AuthParameters: { USERNAME: username!, PASSWORD: password! },
      }),
    );
    const token = result.AuthenticationResult?.AccessToken;
    if (!token) {
      throw new Error(
        `Cognito asked for ${result.ChallengeName ?? 'another step'} instead of issuing tokens ` +
          '(a new user must set a permanent password first)',
      );
    }
    return token;
  } catch (error) {
    const e = error as Error;
    process.stderr.write(`smoke: could not sign in ${who}_USERNAME: ${e.name}: ${e.message}\n`);
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
