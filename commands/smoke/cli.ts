/**
 * `npm run smoke -- <api-url>`: checks a deployment keeps the contract (./checks.ts) and exits
 * non-zero on the first broken promise, naming it.
 *
 * Tokens, from the environment (never printed):
 * - `SMOKE_TOKEN` (a user outside customer-readers) and `SMOKE_READER_TOKEN` (a customer-reader):
 *   access tokens, e.g. from `npm run token -- --stage <name> <user>`; or
 * - `SMOKE_USERNAME`/`SMOKE_PASSWORD` and `SMOKE_READER_USERNAME`/`SMOKE_READER_PASSWORD` with
 *   `SMOKE_CLIENT_ID` (the stack's UserPoolClientId output): exchanged through Cognito
 *   (./sign-in.ts).
 * Optional: `SMOKE_TRANSACTION_ID`, `SMOKE_CUSTOMER_ID` (records that exist in this deployment);
 * `SMOKE_COGNITO_ENDPOINT` (a local Cognito, for the tests).
 */
import { failing } from '../command-failure.ts';
import { BrokenPromise, runSmoke } from './checks.ts';
import { out, smokeSignIn, smokeUsage } from './sign-in.ts';

/** The command's exit status: 1 for a broken promise, 2 when it cannot start. */
export function smokeCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  return failing('smoke', () => smoke(argv, env));
}

async function smoke(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [apiUrl, ...rest] = argv;
  if (!apiUrl || rest.length || !/^https?:\/\/[^/]/.test(apiUrl))
    throw smokeUsage('give the API URL');

  const userToken = env.SMOKE_TOKEN || (await smokeSignIn('SMOKE', apiUrl, env));
  const readerToken = env.SMOKE_READER_TOKEN || (await smokeSignIn('SMOKE_READER', apiUrl, env));

  out(`smoke: ${apiUrl}`);
  try {
    const kept = await runSmoke({
      apiUrl,
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
    return 0;
  } catch (error) {
    if (!(error instanceof BrokenPromise)) throw error;
    out(`BROKEN  ${error.promise}`);
    out(`        ${error.seen}`);
    return 1;
  }
}
