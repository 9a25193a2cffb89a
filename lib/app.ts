import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from './settings';
import { BASE_STACK_NAME, stageFromContext } from './stage';
import { ReadApiStack } from './stack';

/** The default stage's stack name in CloudFormation (see lib/stage.ts for named stages). */
export const STACK_NAME = BASE_STACK_NAME;

/**
 * Builds the CDK app. `bin/app.ts` and the tests both call this, so the tests check exactly what
 * `cdk synth` and `cdk deploy` produce, cdk-nag included.
 *
 * The stack is environment-agnostic (no account or region): synth needs no AWS credentials or
 * lookups, and `cdk deploy` takes the account and region from the caller's AWS environment.
 */
export function createApp(props: AppProps = {}): { app: App; stack: ReadApiStack } {
  const app = new App(props);
  const stage = stageFromContext(app.node);
  const stack = new ReadApiStack(app, stage.stackName, {
    description:
      'Currency exchange read API: HTTP API, Cognito, Lambda, DynamoDB, S3' +
      (stage.name === undefined ? '' : ` (stage ${stage.name})`),
    settings: settingsFromContext(app.node, stage),
    stage,
  });
  // AWS Solutions checks run on every synth; an unacknowledged error fails it.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
