import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { environmentSettings } from '../../functions/sdk/environment-settings.ts';
import { createTableClient } from '../../functions/sdk/table-client.ts';
import { createDocumentClient } from '../../functions/shared/document-client.ts';

const options = { region: 'us-east-1', credentials: { accessKeyId: 'k', secretAccessKey: 's' } };

/**
 * The SDK's logger middleware masks every answer for a logger that is never set: the table
 * client removes it by name (docs/performance.md, "The warm path"). If an SDK update renamed it,
 * the removal would quietly do nothing and the warm budget would slip; this says so at once.
 */
describe('the table client', () => {
  test.each([
    ['the functions’ client', () => createTableClient(options)],
    ['the import’s Document Client', () => createDocumentClient(options)],
  ])('%s has no logger middleware, and keeps the retry and signing steps', (_name, create) => {
    const client = create();
    const steps = client.middlewareStack.identify().join('\n');
    expect(steps).not.toMatch(/loggerMiddleware/);
    expect(steps).toMatch(/retryMiddleware/);
    expect(steps).toMatch(/httpSigningMiddleware/);
    client.destroy();
  });
});

/**
 * The functions' client takes the SDK's settings from the environment only
 * (functions/sdk/environment-settings.ts): a Lambda function has no shared config files, and
 * looking each setting up in them is work on every cold start. A config file that would change
 * every setting, where the SDK looks for it (AWS_CONFIG_FILE), shows which client reads it.
 */
describe('SDK settings of the functions’ client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-config-'));
  const saved = { ...process.env };
  const FILE_ENDPOINT = 'http://from-config-file.invalid';
  const ENV_ENDPOINT = 'http://from-environment.invalid';

  beforeAll(() => {
    const config = join(dir, 'config');
    writeFileSync(
      config,
      [
        '[default]',
        'use_fips_endpoint = true',
        'use_dualstack_endpoint = true',
        'retry_mode = adaptive',
        'account_id_endpoint_mode = required',
        'sdk_ua_app_id = from-config-file',
        'disable_clock_skew_correction = true',
        `endpoint_url = ${FILE_ENDPOINT}`,
        // FIPS does not go with a custom endpoint: this profile has the endpoint alone.
        '[profile endpoint-only]',
        `endpoint_url = ${FILE_ENDPOINT}`,
        '',
      ].join('\n'),
    );
    process.env.AWS_CONFIG_FILE = config;
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
    for (const name of Object.keys(process.env))
      if (/^AWS_(USE_|RETRY_MODE|ACCOUNT_ID_ENDPOINT|SDK_UA|ENDPOINT_URL|PROFILE)/.test(name))
        delete process.env[name];
  });
  afterAll(() => {
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A setting the client's config holds as a value or a provider. */
  const setting = async <T>(value: T | (() => Promise<T>)) =>
    typeof value === 'function' ? (value as () => Promise<T>)() : value;

  /** The host a Query of this client would be sent to (the request is stopped before it goes). */
  async function hostOf(client: ReturnType<typeof createTableClient>): Promise<string> {
    let host = '';
    client.middlewareStack.add(
      () => async (args) => {
        host = (args.request as { hostname: string }).hostname;
        throw new Error('stopped');
      },
      { step: 'finalizeRequest', name: 'capture' },
    );
    await expect(
      client.send(
        new QueryCommand({
          TableName: 't',
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'x' } },
        }),
      ),
    ).rejects.toThrow('stopped');
    return host;
  }

  test('the functions’ client: the SDK’s defaults, whatever the file says', async () => {
    const client = createTableClient({ ...options, environmentOnly: true });
    expect(await client.config.useFipsEndpoint()).toBe(false);
    expect(await client.config.useDualstackEndpoint()).toBe(false);
    expect(await setting(client.config.retryMode)).toBe('standard');
    expect(await client.config.accountIdEndpointMode()).toBe('preferred');
    expect(await client.config.userAgentAppId()).toBeUndefined();
    expect(await hostOf(client)).toBe('dynamodb.us-east-1.amazonaws.com');
    client.destroy();
  });

  test('the import’s client reads the file, as the stock SDK does (the check above can fail)', async () => {
    const client = createTableClient(options);
    expect(await client.config.useFipsEndpoint()).toBe(true);
    expect(await setting(client.config.retryMode)).toBe('adaptive');
    expect(await client.config.accountIdEndpointMode()).toBe('required');
    client.destroy();
    process.env.AWS_PROFILE = 'endpoint-only';
    try {
      const endpointOnly = createTableClient(options);
      expect(await hostOf(endpointOnly)).toBe('from-config-file.invalid');
      endpointOnly.destroy();
    } finally {
      delete process.env.AWS_PROFILE;
    }
  });

  test('the SDK’s environment variables still set them; endpoint URLs are not taken', async () => {
    const client = createTableClient({ ...options, environmentOnly: true });
    const settings = environmentSettings({
      AWS_USE_FIPS_ENDPOINT: 'true',
      AWS_USE_DUALSTACK_ENDPOINT: 'true',
      AWS_RETRY_MODE: 'adaptive',
      AWS_ACCOUNT_ID_ENDPOINT_MODE: 'disabled',
      AWS_SDK_UA_APP_ID: 'from-environment',
      AWS_DISABLE_CLOCK_SKEW_CORRECTION: 'true',
      AWS_ENDPOINT_URL_DYNAMODB: ENV_ENDPOINT,
    });
    expect(await settings.useFipsEndpoint()).toBe(true);
    expect(await settings.useDualstackEndpoint()).toBe(true);
    expect(await settings.retryMode()).toBe('adaptive');
    expect(await settings.accountIdEndpointMode()).toBe('disabled');
    expect(await settings.userAgentAppId()).toBe('from-environment');
    expect(await settings.disableClockSkewCorrection()).toBe(true);
    process.env.AWS_ENDPOINT_URL_DYNAMODB = ENV_ENDPOINT;
    try {
      expect(await hostOf(client)).toBe('dynamodb.us-east-1.amazonaws.com');
    } finally {
      delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
    }
    client.destroy();
  });
});
