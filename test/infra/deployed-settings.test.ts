/**
 * A deployed stage's settings cannot change by omission (stage/deployed-settings.ts): `cdk deploy`
 * (appFromCommandLine, as bin/app.ts runs it) reads the settings the stack keeps in its
 * DeployedSettings output, and a change of the display time zone needs an explicit flag.
 * CloudFormation's answer is stubbed: there is no local CloudFormation.
 */
import { OUTPUTS } from '../../stage/outputs.ts';
import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appFromCommandLine } from '../../lib/app.ts';
import { checkTimeZoneChange, readDeployedSettings } from '../../stage/deployed-settings.ts';
import { SettingsError } from '../../stage/settings.ts';
import { CDK_JSON_CONTEXT, resourcesOf, type CfnTemplate } from './synth.ts';

/** A caller with credentials and a region, as `cdk deploy` runs the app. */
const SIGNED_IN = {
  region: 'ap-southeast-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'example' },
};
const STACK = 'CurrencyExchangeReadApi-staging';

const cloudFormation = mockClient(CloudFormationClient);
const sts = mockClient(STSClient);
afterEach(() => {
  cloudFormation.reset();
  sts.reset();
});
afterAll(() => {
  cloudFormation.restore();
  sts.restore();
});

function deployedWith(value: string): void {
  cloudFormation.on(DescribeStacksCommand, { StackName: STACK }).resolves({
    Stacks: [
      {
        StackName: STACK,
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: new Date(0),
        Outputs: [{ OutputKey: OUTPUTS.deployedSettings, OutputValue: value }],
      },
    ],
  });
}

function notFound(name: string, message: string) {
  return new CloudFormationServiceException({ name, message, $fault: 'client', $metadata: {} });
}

/** `cdk synth` with the given command-line context: the template. */
async function synthFromCommandLine(context: Record<string, unknown>): Promise<CfnTemplate> {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-deployed-'));
  try {
    const { app, stack } = await appFromCommandLine(
      { outdir, context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context } },
      SIGNED_IN,
    );
    return app.synth().getStackArtifact(stack.artifactId).template as CfnTemplate;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const kept = (template: CfnTemplate) =>
  JSON.parse(template.Outputs![OUTPUTS.deployedSettings]!.Value as string) as Record<
    string,
    unknown
  >;

test('a plain deploy keeps every setting the stage was deployed with', async () => {
  // The first deploy of the stage, with settings of its own.
  cloudFormation
    .on(DescribeStacksCommand, { StackName: STACK })
    .rejects(notFound('ValidationError', `Stack with id ${STACK} does not exist`));
  const first = await synthFromCommandLine({
    stage: 'staging',
    displayTimeZone: 'Asia/Manila',
    corsAllowOrigins: 'https://backoffice.example.com',
    alarmEmail: 'ops@example.com',
    importConcurrency: '5',
    readBudgetCustomers: '12',
  });
  expect(kept(first)).toMatchObject({
    displayTimeZone: 'Asia/Manila',
    corsAllowOrigins: ['https://backoffice.example.com'],
    importConcurrency: 5,
    readBudgetCustomers: 12,
    disposable: false,
    alarmEmailSet: true,
  });
  // Not the address: an output is read by anyone who may describe the stack.
  expect(JSON.stringify(first.Outputs)).not.toContain('ops@example.com');

  // The next deploy names the stage, and the alarm address, which it must give again.
  cloudFormation.reset();
  deployedWith(first.Outputs![OUTPUTS.deployedSettings]!.Value as string);
  await expect(synthFromCommandLine({ stage: 'staging' })).rejects.toThrow(
    /alarmEmail: this stage sends its alarms to an e-mail address.*-c alarmEmail=<address>/,
  );
  const next = await synthFromCommandLine({ stage: 'staging', alarmEmail: 'ops@example.com' });
  expect(kept(next)).toEqual(kept(first));
  for (const [, fn] of resourcesOf(next, 'AWS::Lambda::Function').filter(([id]) =>
    id.startsWith('Api'),
  ))
    expect(fn.Properties!.Environment.Variables).toMatchObject({
      DISPLAY_TIME_ZONE: 'Asia/Manila',
      READ_BUDGET_CUSTOMERS: '12',
    });
  expect(resourcesOf(next, 'AWS::SNS::Subscription').map(([, r]) => r.Properties!)).toEqual([
    expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com' }),
  ]);
  // A setting given on the command line still wins over the kept one.
  expect(
    kept(
      await synthFromCommandLine({
        stage: 'staging',
        alarmEmail: '',
        importConcurrency: '7',
      }),
    ),
  ).toEqual({ ...kept(first), importConcurrency: 7, alarmEmailSet: false });
}, 180_000);

test("a deployed stage's display time zone changes only when asked for", async () => {
  deployedWith(JSON.stringify({ displayTimeZone: 'Asia/Manila' }));
  const refused = synthFromCommandLine({ stage: 'staging', displayTimeZone: 'UTC' });
  await expect(refused).rejects.toThrow(SettingsError);
  await expect(refused).rejects.toThrow(
    /deployed with Asia\/Manila; UTC would change every time.*-c allowTimeZoneChange=true/,
  );
  expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(1);
  // Asked for explicitly, or the same zone: allowed.
  expect(() => checkTimeZoneChange({ displayTimeZone: 'Asia/Manila' }, 'UTC', true)).not.toThrow();
  expect(() =>
    checkTimeZoneChange({ displayTimeZone: 'Asia/Manila' }, 'Asia/Manila', false),
  ).not.toThrow();
  // A first deploy has nothing to change.
  expect(() => checkTimeZoneChange(undefined, 'UTC', false)).not.toThrow();
});

test('the lookup fails closed: only "no such stack" and "no credentials" go on without it', async () => {
  cloudFormation
    .on(DescribeStacksCommand)
    .rejects(notFound('ValidationError', `Stack with id ${STACK} does not exist`));
  await expect(readDeployedSettings(STACK, SIGNED_IN)).resolves.toEqual({ kind: 'none' });

  cloudFormation.reset();
  cloudFormation.on(DescribeStacksCommand).rejects(notFound('AccessDenied', 'not authorized'));
  const denied = readDeployedSettings(STACK, SIGNED_IN);
  await expect(denied).rejects.toThrow(SettingsError);
  await expect(denied).rejects.toThrow(/-c readDeployedSettings=false/);

  // No credentials: nothing can be deployed from here either; CloudFormation is not asked.
  cloudFormation.reset();
  const offline = await readDeployedSettings(STACK, {
    region: 'ap-southeast-1',
    credentials: () => Promise.reject(new Error('no credentials')),
  });
  expect(offline).toEqual({ kind: 'offline' });
  expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(0);

  // A stack deployed before settings were kept: the context and the defaults, as before.
  cloudFormation.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: STACK } as never] });
  await expect(readDeployedSettings(STACK, SIGNED_IN)).resolves.toEqual({ kind: 'none' });
});

test('the settings are read from the account cdk deploys to, or the synth is refused', async () => {
  // `cdk deploy --profile other`: the CLI resolves the account, the app gets no credentials.
  const noCredentials = {
    region: 'ap-southeast-1',
    credentials: () => Promise.reject(new Error('no credentials')),
  };
  await expect(readDeployedSettings(STACK, noCredentials, '111122223333')).rejects.toThrow(
    /deploys to account 111122223333, but the app finds no AWS credentials.*AWS_PROFILE/,
  );
  // The app's default credentials belong to another account.
  sts.on(GetCallerIdentityCommand).resolves({ Account: '444455556666' });
  await expect(readDeployedSettings(STACK, SIGNED_IN, '111122223333')).rejects.toThrow(
    /app's AWS credentials are account 444455556666's/,
  );
  expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(0);
  // The same account: read.
  sts.on(GetCallerIdentityCommand).resolves({ Account: '111122223333' });
  deployedWith(JSON.stringify({ displayTimeZone: 'Asia/Manila' }));
  await expect(readDeployedSettings(STACK, SIGNED_IN, '111122223333')).resolves.toEqual({
    kind: 'deployed',
    context: { displayTimeZone: 'Asia/Manila' },
  });
});
