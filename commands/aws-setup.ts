/**
 * What the commands that reach a deployed stack (`npm run import -- --stack/--stage`,
 * `npm run token -- --stack/--stage`) say when the AWS SDK finds no region or no credentials:
 * what to set, in one line, rather than the SDK's "Region is missing".
 */
export function awsSetupProblem(error: unknown): string | undefined {
  const { name, message } = (error ?? {}) as { name?: string; message?: string };
  if (message === 'Region is missing')
    return (
      'no AWS region is set: set AWS_REGION (export AWS_REGION=eu-west-1), or AWS_PROFILE to a ' +
      "profile that has one: the stack's region"
    );
  if (name === 'CredentialsProviderError')
    return (
      'no AWS credentials were found: set AWS_PROFILE to a profile of ~/.aws (run `aws sso login` ' +
      'first for an SSO profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: the places the ' +
      'AWS CLI reads'
    );
  return undefined;
}
