import type { CloudFormationClientConfig } from '@aws-sdk/client-cloudformation';
import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import {
  ALLOW_TIME_ZONE_CHANGE,
  READ_DEPLOYED_SETTINGS,
  checkAlarmEmail,
  checkTimeZoneChange,
  readDeployedSettings,
  type SettingsContext,
} from '../stage/deployed-settings.ts';
import { settingsFromContext } from '../stage/settings.ts';
import { flag, stageFromContext } from '../stage/stage.ts';
import { ReadApiStack } from './stack.ts';

/**
 * Builds the CDK app. `bin/app.ts` and the tests both call this, so the tests check exactly what
 * `cdk synth` and `cdk deploy` produce, cdk-nag included.
 *
 * The stack is environment-agnostic (no account or region): synth needs no AWS credentials, and
 * `cdk deploy` takes the account and region from the caller's AWS environment. `deployed`: the
 * settings the stage was deployed with (bin/app.ts reads them: stage/deployed-settings.ts).
 */
export function createApp(
  props: AppProps = {},
  deployed?: SettingsContext,
): { app: App; stack: ReadApiStack } {
  // The deployed stage's settings under the context given: the CLI's (-c, cdk.json) wins, then
  // props.context (the tests' "command line"), then what the stage was deployed with.
  const app = new App({ ...props, context: { ...deployed, ...props.context } });
  const stage = stageFromContext(app.node);
  checkAlarmEmail(deployed, app.node.tryGetContext('alarmEmail'));
  const settings = settingsFromContext(app.node);
  checkTimeZoneChange(
    deployed,
    settings.displayTimeZone,
    flag(app.node.tryGetContext(ALLOW_TIME_ZONE_CHANGE), ALLOW_TIME_ZONE_CHANGE),
  );
  const stack = new ReadApiStack(app, stage.stackName, {
    description:
      'Currency exchange read API: HTTP API, Cognito, Lambda, DynamoDB, S3' +
      (stage.name === undefined ? '' : ` (stage ${stage.name})`),
    settings,
    stage,
  });
  // AWS Solutions checks run on every synth; an unacknowledged error fails it.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

/**
 * The app as `cdk synth` and `cdk deploy` build it (bin/app.ts): the stage named by the context,
 * built on the settings it was deployed with, unless `-c readDeployedSettings=false`.
 * `props` and `cloudFormation` are for tests (context given, the AWS call stubbed).
 */
export async function appFromCommandLine(
  props: AppProps = {},
  cloudFormation: CloudFormationClientConfig = {},
): Promise<{ app: App; stack: ReadApiStack }> {
  // The context given alone, to name the stack whose settings to read (never synthesized: under
  // the CLI an App synthesizes itself at exit, and an empty one would replace the real one's).
  const { node } = new App({ ...props, autoSynth: false });
  const read = node.tryGetContext(READ_DEPLOYED_SETTINGS) as unknown;
  const lookup =
    read === undefined || flag(read, READ_DEPLOYED_SETTINGS)
      ? await readDeployedSettings(stageFromContext(node).stackName, cloudFormation)
      : undefined;
  const deployed = lookup?.kind === 'deployed' ? lookup.context : undefined;
  // Said, so that a setting given once for a backfill is not kept unnoticed.
  const kept = Object.entries(deployed ?? {}).filter(
    ([key]) => node.tryGetContext(key) === undefined,
  );
  if (kept.length > 0)
    process.stderr.write(
      `Kept from the deployed stage: ${kept.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(', ')}\n`,
    );
  return createApp(props, deployed);
}
