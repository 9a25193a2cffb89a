import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { Api } from './api.ts';
import { AuditTrail } from './audit.ts';
import { Data } from './data.ts';
import { Identity } from './identity.ts';
import { OUTPUTS } from '../stage/outputs.ts';
import { ImportDrop } from './import-drop.ts';
import { Monitoring } from './monitoring.ts';
import { StaffApp } from './staff-app.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';
import { routes as defaultRoutes, type Route } from '../core/routes.ts';
import {
  DEFAULT_SETTINGS,
  settingsToContext,
  validateSettings,
  type Settings,
} from '../stage/settings.ts';
import { ownLogGroups } from './function-logs.ts';
import {
  AUDIT_RETENTION,
  keepPoliciesWithBuckets,
  protectAuditTrail,
  removalPolicyFor,
} from './retention.ts';
import { DEFAULT_STAGE, type Stage } from '../stage/stage.ts';

export interface ReadApiStackProps extends StackProps {
  readonly settings?: Settings;
  /** @default the default stage: today's stack, data retained */
  readonly stage?: Stage;
  /** @default the shared table in core/routes.ts, the one the local gateway serves */
  readonly routes?: readonly Route[];
  readonly throttle?: Required<ThrottleSettings>;
  readonly logRetention?: RetentionDays;
}

/**
 * The whole deployed product in one stack: data, identity and API are constructs rather than
 * stacks of their own because they share one lifecycle and cross-stack references would only
 * make the RETAINed table and bucket harder to move.
 */
export class ReadApiStack extends Stack {
  readonly data: Data;
  readonly staffApp: StaffApp;
  readonly identity: Identity;
  readonly api: Api;
  readonly monitoring: Monitoring;
  readonly audit: AuditTrail;
  readonly importDrop: ImportDrop;
  readonly stage: Stage;

  constructor(scope: Construct, id: string, props: ReadApiStackProps = {}) {
    super(scope, id, props);
    const stage = (this.stage = props.stage ?? DEFAULT_STAGE);
    const settings = validateSettings(props.settings ?? DEFAULT_SETTINGS);
    const { disposable } = stage;
    const routes = props.routes ?? defaultRoutes;

    this.data = new Data(this, 'Data', {
      disposable,
      warmWritesPerSecond: settings.tableWarmWritesPerSecond,
    });
    this.identity = new Identity(this, 'Identity', {
      disposable,
      threatProtection: settings.threatProtection,
      sesFromAddress: settings.sesFromAddress,
    });
    this.staffApp = new StaffApp(this, 'StaffApp', {
      filesBucket: this.data.bucket,
      accessLogsBucket: this.data.accessLogsBucket,
      disposable,
      priceClass: settings.priceClass,
      domain: settings.staffPageDomain,
    });
    this.api = new Api(this, 'Api', {
      routes,
      pageOrigins: [this.staffApp.origin],
      projectRoot: PROJECT_ROOT,
      table: this.data.table,
      bucket: this.data.bucket,
      userPool: this.identity.userPool,
      userPoolClient: this.identity.client,
      settings,
      throttle: props.throttle,
      logRetention: props.logRetention,
      logRemovalPolicy: removalPolicyFor(disposable),
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      name: this.stackName,
      httpApi: this.api.httpApi,
      accessLogGroup: this.api.accessLogGroup,
      routes,
      functions: this.api.functions,
      table: this.data.table,
      alarmEmail: stage.alarmEmail,
      disposable,
    });
    this.importDrop = new ImportDrop(this, 'Import', {
      projectRoot: PROJECT_ROOT,
      table: this.data.table,
      alarmTopic: this.monitoring.topic,
      displayTimeZone: settings.displayTimeZone,
      concurrency: settings.importConcurrency,
      checkFiles: settings.importFileCheck,
      disposable,
      accessLogsBucket: this.data.accessLogsBucket,
      filesBucket: this.data.bucket,
      logRetention: props.logRetention,
    });
    this.importDrop.monitor(this.monitoring.facade, this.stackName);
    this.audit = new AuditTrail(this, 'Audit', {
      name: this.stackName,
      functionLogGroups: [...this.api.functions.values()].map((fn) => fn.logGroup),
      importLogGroups: [...this.importDrop.functions.values()].map((fn) => fn.logGroup),
      facade: this.monitoring.facade,
    });

    this.staffApp.deploy({
      apiUrl: this.api.httpApi.apiEndpoint,
      region: this.region,
      userPoolClientId: this.identity.client.userPoolClientId,
      issuer: this.stackName,
      displayTimeZone: settings.displayTimeZone,
      currency: settings.currency,
      businessName: settings.businessName,
    });
    protectAuditTrail(
      [
        ...[...this.api.functions.values(), ...this.importDrop.functions.values()].map(
          (fn) => fn.logGroup,
        ),
        this.api.accessLogGroup,
        this.importDrop.workflowLogGroup,
      ],
      disposable,
    );
    keepPoliciesWithBuckets(this);
    ownLogGroups(this, {
      retention: props.logRetention ?? AUDIT_RETENTION,
      removalPolicy: removalPolicyFor(disposable),
    });
    new CfnOutput(this, OUTPUTS.staffAppUrl, {
      value: this.staffApp.url,
      description: 'The staff page: sign in, look up a transaction or a customer',
    });
    new CfnOutput(this, OUTPUTS.apiUrl, {
      value: this.api.url,
      description: 'Invoke URL of the API',
    });
    new CfnOutput(this, OUTPUTS.userPoolId, { value: this.identity.userPool.userPoolId });
    new CfnOutput(this, OUTPUTS.userPoolClientId, {
      value: this.identity.client.userPoolClientId,
      description: 'App client for initiate-auth; the only audience the API accepts',
    });
    new CfnOutput(this, OUTPUTS.tableName, {
      value: this.data.table.tableName,
      description: 'TABLE_NAME for npm run access',
    });
    new CfnOutput(this, OUTPUTS.bucketName, {
      value: this.data.bucket.bucketName,
      description: 'Upload signatures/, attachments/ and id-photos/ files here',
    });
    new CfnOutput(this, OUTPUTS.filesKeyArn, {
      value: this.data.filesKey.keyArn,
      description: "The files bucket's KMS key: uploading needs kms:GenerateDataKey on it",
    });
    new CfnOutput(this, OUTPUTS.importBucket, {
      value: this.importDrop.bucket.bucketName,
      description:
        'npm run import -- <file> --stage <name> puts files under incoming/ here (SPEC 9)',
    });
    new CfnOutput(this, OUTPUTS.importKeyArn, {
      value: this.importDrop.key.keyArn,
      description:
        "The import bucket's KMS key: uploading needs kms:GenerateDataKey and kms:Decrypt on it",
    });
    new CfnOutput(this, OUTPUTS.importStateMachine, {
      value: this.importDrop.stateMachine.stateMachineArn,
      description: 'The import workflow; npm run import follows its executions',
    });
    new CfnOutput(this, OUTPUTS.deployedSettings, {
      value: JSON.stringify(settingsToContext(settings, stage)),
      description: 'The settings this stage was deployed with: a plain cdk deploy keeps them',
    });
    new CfnOutput(this, OUTPUTS.alarmTopicArn, {
      value: this.monitoring.topic.topicArn,
      description: 'Every alarm of this stage notifies this topic; subscribe to it',
    });
  }
}
