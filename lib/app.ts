import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from './settings';
import { ReadApiStack } from './stack';

/** The stack's name in CloudFormation; physical resource names are all generated from it. */
export const STACK_NAME = 'CurrencyExchangeReadApi';

/**
 * Builds the CDK app. `bin/app.ts` and the tests both call this, so the tests check exactly what
 * `cdk synth` and `cdk deploy` produce, cdk-nag included.
 *
 * The stack is environment-agnostic (no account or region): synth needs no AWS credentials or
 * lookups, and `cdk deploy` takes the account and region from the caller's AWS environment.
 */
export function createApp(props: AppProps = {}): { app: App; stack: ReadApiStack } {
  const app = new App(props);
  const stack = new ReadApiStack(app, STACK_NAME, {
    description: 'Currency exchange read API: HTTP API, Cognito, Lambda, DynamoDB, S3',
    settings: settingsFromContext(app.node),
  });
  // AWS Solutions checks run on every synth; an unacknowledged error fails it.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
