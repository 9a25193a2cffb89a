/**
 * A stage's settings as deployed. The stack keeps every setting it was built with in its
 * `DeployedSettings` output, as the context values that give them; a synth through bin/app.ts
 * reads them back and uses them under the context given, so that a setting left off a later
 * `cdk deploy` keeps its deployed value instead of going back to the default. Changing the display
 * time zone of a deployed stage is refused unless asked for (`-c allowTimeZoneChange=true`):
 * stored instants stay as they are, but every time the API shows, and every wall time a later
 * import reads, moves by the difference between the zones.
 */
import {
  CloudFormationClient,
  DescribeStacksCommand,
  type CloudFormationClientConfig,
} from '@aws-sdk/client-cloudformation';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { OUTPUTS } from './outputs.ts';
import { ALARM_EMAIL_SET, SettingsError } from './settings.ts';

/** Context flag that allows a deployed stage's display time zone to change. */
export const ALLOW_TIME_ZONE_CHANGE = 'allowTimeZoneChange';
/** Context flag to synthesize without reading the deployed settings (`false`). */
export const READ_DEPLOYED_SETTINGS = 'readDeployedSettings';

/** Context key → value, as `-c key=value` would give it. */
export type SettingsContext = Record<string, unknown>;

/** What the lookup found. */
export type DeployedLookup =
  /** The stack's kept settings. */
  | { kind: 'deployed'; context: SettingsContext }
  /** No such stack (a first deploy), or one deployed before settings were kept. */
  | { kind: 'none' }
  /** No AWS credentials or region: nothing can be deployed from here either (an offline synth). */
  | { kind: 'offline' };

/**
 * Reads the kept settings of `stackName` in the caller's account and region. Fails closed: any
 * answer other than the stack's outputs, "no such stack" or "no credentials" refuses the synth,
 * because a deploy that could not read them could silently undo a setting.
 *
 * `deployTo`: the account cdk deploys to (CDK_DEFAULT_ACCOUNT, which the CLI resolves with its
 * own credentials, `--profile` included, but does not hand to the app). When it is known, this
 * process must read that very account: no credentials, or another account's, refuse the synth.
 */
export async function readDeployedSettings(
  stackName: string,
  config: CloudFormationClientConfig = {},
  deployTo: string | undefined = process.env.CDK_DEFAULT_ACCOUNT,
): Promise<DeployedLookup> {
  const client = new CloudFormationClient({
    region: process.env.CDK_DEFAULT_REGION,
    maxAttempts: 5,
    ...config,
  });
  try {
    await client.config.region();
    await client.config.credentials();
  } catch {
    if (deployTo === undefined) return { kind: 'offline' };
    throw new SettingsError(
      `cdk deploys to account ${deployTo}, but the app finds no AWS credentials to read the ` +
        `settings ${stackName} was deployed with (cdk does not pass --profile to the app): ` +
        `set AWS_PROFILE (or the credentials) in the environment instead of --profile.`,
    );
  }
  if (deployTo !== undefined) {
    const sts = new STSClient({
      region: await client.config.region(),
      credentials: client.config.credentials,
    });
    try {
      const { Account } = await sts.send(new GetCallerIdentityCommand({}));
      if (Account !== deployTo)
        throw new SettingsError(
          `cdk deploys to account ${deployTo}, but the app's AWS credentials are account ` +
            `${Account}'s: the settings ${stackName} was deployed with would be read from the ` +
            `wrong account. Set AWS_PROFILE (or the credentials) for ${deployTo} instead of --profile.`,
        );
    } finally {
      sts.destroy();
    }
  }
  let outputs: { OutputKey?: string; OutputValue?: string }[] | undefined;
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    outputs = Stacks?.[0]?.Outputs;
  } catch (error) {
    const { name, message } = error as Error;
    if (name === 'ValidationError' && /does not exist/.test(message)) return { kind: 'none' };
    throw new SettingsError(
      `could not read the settings ${stackName} was deployed with (${name}: ${message}). ` +
        `A deploy without them could undo a setting; fix the credentials, or pass ` +
        `-c ${READ_DEPLOYED_SETTINGS}=false to synthesize from the context given alone.`,
    );
  } finally {
    client.destroy();
  }
  const kept = outputs?.find((output) => output.OutputKey === OUTPUTS.deployedSettings);
  if (kept?.OutputValue === undefined) return { kind: 'none' };
  let context: unknown;
  try {
    context = JSON.parse(kept.OutputValue);
  } catch {
    context = undefined;
  }
  if (typeof context !== 'object' || context === null || Array.isArray(context))
    throw new SettingsError(`${stackName}'s ${OUTPUTS.deployedSettings} output is not an object`);
  return { kind: 'deployed', context: context as SettingsContext };
}

/**
 * Refuses a change of a deployed stage's display time zone unless the context allows it.
 * `requested` is the zone the synth resolved (given, or kept); `deployed` the stage's.
 */
export function checkTimeZoneChange(
  deployed: SettingsContext | undefined,
  requested: string,
  allowed: boolean,
): void {
  const zone = deployed?.displayTimeZone;
  if (typeof zone !== 'string' || zone === requested || allowed) return;
  throw new SettingsError(
    `displayTimeZone: this stage was deployed with ${zone}; ${requested} would change every time ` +
      `it holds as the API shows it (stored instants stay; a time imported as ${zone} wall time ` +
      `is then shown as ${requested} wall time), and a later import would read wall times in the ` +
      `new zone. Pass -c ${ALLOW_TIME_ZONE_CHANGE}=true to change it anyway, or leave ` +
      `displayTimeZone out to keep ${zone}.`,
  );
}

/**
 * Refuses a deploy that would drop the stage's alarm subscription by omission: the e-mail is not
 * kept (settingsToContext), so it must be given again, or `-c alarmEmail=` to end it.
 */
export function checkAlarmEmail(deployed: SettingsContext | undefined, given: unknown): void {
  if (deployed?.[ALARM_EMAIL_SET] !== true || given !== undefined) return;
  throw new SettingsError(
    'alarmEmail: this stage sends its alarms to an e-mail address, which the stack does not keep ' +
      '(a stack output is no place for an address). Give it again with -c alarmEmail=<address>, ' +
      'or -c alarmEmail= to end the subscription.',
  );
}
