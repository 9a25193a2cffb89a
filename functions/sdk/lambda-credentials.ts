/**
 * The credentials of a deployed function, without the AWS SDK's default provider chain.
 *
 * Lambda hands a function its execution role's credentials in `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`. Where Lambda serves them from a local endpoint
 * instead (`AWS_CONTAINER_CREDENTIALS_FULL_URI` with `AWS_CONTAINER_AUTHORIZATION_TOKEN`, as with
 * SnapStart), they are fetched from there and refreshed before they expire. The rest of the chain
 * (profiles, SSO, ini files, process, web identity, EC2 metadata) is code a function never runs:
 * the Lambda bundles put this module in place of `@aws-sdk/credential-provider-node` (BUNDLING in
 * lib/project-function.ts), which removes about a third of each bundle. The import command and the
 * local tools run from source and keep the full chain.
 */
import { setCredentialFeature } from '@aws-sdk/core/client';
import { fromHttp } from '@aws-sdk/credential-provider-http';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export class MissingCredentialsError extends Error {
  override readonly name = 'MissingCredentialsError';
}

type Env = Record<string, string | undefined>;

const MISSING =
  'No AWS credentials in the environment: this function reads AWS_ACCESS_KEY_ID and ' +
  'AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or AWS_CONTAINER_CREDENTIALS_FULL_URI, as ' +
  'Lambda sets them. Profiles, SSO and instance metadata are not read by the deployed bundle.';

/** The identity the SDK's fromEnv returns, field for field (and the same user-agent mark). */
function fromEnvironment(env: Env): AwsCredentialIdentity {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new MissingCredentialsError(MISSING);
  return setCredentialFeature(
    {
      accessKeyId,
      secretAccessKey,
      ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }),
      ...(env.AWS_CREDENTIAL_EXPIRATION && {
        expiration: new Date(env.AWS_CREDENTIAL_EXPIRATION),
      }),
      ...(env.AWS_CREDENTIAL_SCOPE && { credentialScope: env.AWS_CREDENTIAL_SCOPE }),
      ...(env.AWS_ACCOUNT_ID && { accountId: env.AWS_ACCOUNT_ID }),
    },
    'CREDENTIALS_ENV_VARS',
    'g',
  );
}

/**
 * The function's credentials provider, chosen at init: no credentials at all fails there, with
 * the reason, rather than on the first request. Like the SDK's own providers, the environment is
 * read again on each call.
 */
export function lambdaCredentials(env: Env = process.env): AwsCredentialIdentityProvider {
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return async () => fromEnvironment(env);
  }
  if (env.AWS_CONTAINER_CREDENTIALS_FULL_URI || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI) {
    // Temporary credentials with an expiration: the SDK asks again before they expire.
    return fromHttp({
      awsContainerCredentialsFullUri: env.AWS_CONTAINER_CREDENTIALS_FULL_URI,
      awsContainerCredentialsRelativeUri: env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI,
      awsContainerAuthorizationToken: env.AWS_CONTAINER_AUTHORIZATION_TOKEN,
      awsContainerAuthorizationTokenFile: env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE,
    });
  }
  throw new MissingCredentialsError(MISSING);
}

/**
 * Stands in for `@aws-sdk/credential-provider-node`'s `defaultProvider` in the Lambda bundles: every
 * SDK client there gets its credentials from lambdaCredentials.
 */
export const defaultProvider = (): AwsCredentialIdentityProvider => lambdaCredentials();
