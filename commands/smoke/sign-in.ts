/**
 * The smoke's tokens from a username and password (`SMOKE_USERNAME`/`SMOKE_PASSWORD`,
 * `SMOKE_READER_USERNAME`/`SMOKE_READER_PASSWORD`, with `SMOKE_CLIENT_ID`): Cognito InitiateAuth
 * USER_PASSWORD_AUTH, the flow the app client allows (lib/identity.ts), and the TOTP second
 * factor every user passes (MFA is required): a user without a TOTP yet enrols one here
 * (MFA_SETUP: AssociateSoftwareToken and VerifySoftwareToken with the challenge's Session), and
 * its secret is kept in `SMOKE_TOTP_FILE` (default `.local/smoke-totp.json`, readable by its owner
 * only) for the next runs, which answer SOFTWARE_TOKEN_MFA with a code from it;
 * `SMOKE_TOTP_SECRET` and `SMOKE_READER_TOTP_SECRET` give a secret kept elsewhere (a CI secret).
 * The region is `SMOKE_REGION`, else `AWS_REGION`, else the one in the API URL.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { signInWithTotp, UnansweredChallenge } from '../../sign-in/flow.ts';
import { totpCode } from '../../sign-in/totp.ts';
import { CommandFailure } from '../command-failure.ts';

export const out = (line: string) => process.stdout.write(`${line}\n`);

/** The smoke cannot start: why, and how it is run (exit 2). */
export function smokeUsage(message: string): CommandFailure {
  return new CommandFailure(
    `${message}\n` +
      'usage: npm run smoke -- <api-url>\n' +
      '  tokens: SMOKE_TOKEN and SMOKE_READER_TOKEN, or SMOKE_USERNAME, SMOKE_PASSWORD,\n' +
      '  SMOKE_READER_USERNAME, SMOKE_READER_PASSWORD and SMOKE_CLIENT_ID (see docs/operations.md)',
    2,
  );
}

/** Where the TOTP secrets the smoke enrolled are kept, by app client and username. */
const totpFileOf = (env: NodeJS.ProcessEnv) =>
  resolve(env.SMOKE_TOTP_FILE || join(PROJECT_ROOT, '.local', 'smoke-totp.json'));

function keptSecrets(totpFile: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(totpFile, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

function keepSecret(totpFile: string, key: string, secret: string): void {
  mkdirSync(dirname(totpFile), { recursive: true });
  const secrets = { ...keptSecrets(totpFile), [key]: secret };
  writeFileSync(totpFile, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  chmodSync(totpFile, 0o600); // a file from before keeps its mode otherwise
}

/** The access token of `who`'s user, signed in (and enrolled in TOTP when new). */
export async function smokeSignIn(
  who: 'SMOKE' | 'SMOKE_READER',
  apiUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const username = env[`${who}_USERNAME`];
  const password = env[`${who}_PASSWORD`];
  const clientId = env.SMOKE_CLIENT_ID;
  if (!username || !password || !clientId) {
    throw smokeUsage(`set ${who}_TOKEN, or ${who}_USERNAME, ${who}_PASSWORD and SMOKE_CLIENT_ID`);
  }
  const region =
    env.SMOKE_REGION ||
    env.AWS_REGION ||
    /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(apiUrl)?.[1];
  if (!region) throw smokeUsage("set SMOKE_REGION (the user pool's region)");
  // The sign-in calls are unsigned (the SDK resolves no AWS credentials for them): the password
  // and the TOTP code are the credentials.
  const client = new CognitoIdentityProviderClient({
    region,
    ...(env.SMOKE_COGNITO_ENDPOINT ? { endpoint: env.SMOKE_COGNITO_ENDPOINT } : {}),
  });
  const totpFile = totpFileOf(env);
  const key = `${clientId}/${username}`;
  const secret = env[`${who}_TOTP_SECRET`] || keptSecrets(totpFile)[key];
  try {
    const tokens = await signInWithTotp({
      client,
      clientId,
      username,
      password,
      ...(secret ? { code: () => totpCode(secret) } : {}),
      enrol: true,
      deviceName: 'npm run smoke',
    });
    if (tokens.enrolledSecret) {
      keepSecret(totpFile, key, tokens.enrolledSecret);
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
    throw new CommandFailure(`could not sign in ${who}_USERNAME: ${why}`, 2);
  } finally {
    client.destroy();
  }
}
