/**
 * The credentials the Lambda bundles use in place of the SDK's default chain
 * (functions/sdk/lambda-credentials.ts): the same identity the stock chain finds in Lambda's
 * environment, the container endpoint when Lambda serves credentials that way, and a clear error
 * when there are none.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultProvider as stockChain } from '@aws-sdk/credential-provider-node';
import {
  defaultProvider,
  lambdaCredentials,
  MissingCredentialsError,
} from '../../functions/sdk/lambda-credentials.ts';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

/** Only the given variables: no profile, no container endpoint, nothing else to find. */
function onlyEnv(vars: Record<string, string>): void {
  for (const name of Object.keys(process.env))
    if (name.startsWith('AWS_')) delete process.env[name];
  Object.assign(process.env, vars);
}

test.each<Record<string, string>>([
  { AWS_ACCESS_KEY_ID: 'AKIDLAMBDA', AWS_SECRET_ACCESS_KEY: 's3cr3t' },
  { AWS_ACCESS_KEY_ID: 'ASIALAMBDA', AWS_SECRET_ACCESS_KEY: 's3cr3t', AWS_SESSION_TOKEN: 'tok' },
  {
    AWS_ACCESS_KEY_ID: 'ASIALAMBDA',
    AWS_SECRET_ACCESS_KEY: 's3cr3t',
    AWS_SESSION_TOKEN: 'tok',
    AWS_CREDENTIAL_EXPIRATION: '2030-01-02T03:04:05Z',
    AWS_CREDENTIAL_SCOPE: 'eu-west-1',
    AWS_ACCOUNT_ID: '123456789012',
  },
])(
  'from the environment: the identity the stock default chain returns, field for field',
  async (vars) => {
    onlyEnv(vars);
    const ours = await defaultProvider()();
    const stock = await stockChain()();
    expect(ours).toEqual(stock);
    expect(ours.accessKeyId).toBe(vars.AWS_ACCESS_KEY_ID);
  },
);

test('from the environment, read again on each call like the SDK does', async () => {
  onlyEnv({ AWS_ACCESS_KEY_ID: 'AKID1', AWS_SECRET_ACCESS_KEY: 'one' });
  const provider = lambdaCredentials();
  expect((await provider()).secretAccessKey).toBe('one');
  process.env.AWS_SECRET_ACCESS_KEY = 'two';
  expect((await provider()).secretAccessKey).toBe('two');
});

test('from the container endpoint Lambda sets instead, with its authorization token and expiry', async () => {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        AccessKeyId: 'ASIACONTAINER',
        SecretAccessKey: 'from-endpoint',
        Token: 'session',
        Expiration: '2030-01-01T00:00:00Z',
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    onlyEnv({
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${port}/2021-04-23/credentials`,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: 'lambda-token',
    });
    const identity = await lambdaCredentials()();
    expect(identity).toMatchObject({
      accessKeyId: 'ASIACONTAINER',
      secretAccessKey: 'from-endpoint',
      sessionToken: 'session',
      expiration: new Date('2030-01-01T00:00:00Z'),
    });
    expect(seen[0]!.authorization).toBe('lambda-token');
  } finally {
    server.close();
  }
});

test('no credentials at all: a clear error at once, naming what the function reads', () => {
  onlyEnv({ AWS_PROFILE: 'dev' });
  expect(() => lambdaCredentials()).toThrow(MissingCredentialsError);
  expect(() => defaultProvider()).toThrow(
    /No AWS credentials in the environment: this function reads AWS_ACCESS_KEY_ID/,
  );
});
