/**
 * SPEC 7's stages in the template, for the default stage and for a named disposable stage: names,
 * logical ids kept from before stages, and what each kind of stage keeps. Alarms: ./alarms.ts.
 */
import { createApp } from '../../../lib/app.ts';

import { SettingsError } from '../../../stage/settings.ts';
import { makeStage } from '../../../stage/stage.ts';
import {
  bothStages,
  CDK_JSON_CONTEXT,
  onlyResource,
  resourcesOf,
  scratchOutdir,
  type Synthesized,
} from '../synth.ts';

const stages = bothStages();
const [[, prod], [, dev]] = stages;

/**
 * Logical ids of what a default stack holds. A changed id would make CloudFormation replace the
 * resource: a new, empty table or user pool. (The API's functions, their roles and log groups
 * were renamed when one function per entity came to serve the lookups of SPEC 10; no stack had
 * been deployed, so nothing was replaced.)
 */
const DEPLOYED_BEFORE_STAGES = [
  'ApiAccessLogs50B185DB',
  'ApiDefaultStage189A7074',
  'ApiCustomers8895681C',
  'ApiCustomersLogGroup035BEEE2',
  'ApiCustomersRole960755EB',
  'ApiCustomersRoleDefaultPolicy8B7EE88C',
  'ApiTransactionsD572316F',
  'ApiTransactionsLogGroup5B2D0634',
  'ApiTransactionsRole47010093',
  'ApiTransactionsRoleDefaultPolicy2193BBCB',
  'ApiHttpApi4C294DC0',
  'ApiHttpApiCognitoAuthorizerB58DB3E4',
  'ApiHttpApiGETcustomerscustomerid7C6266A2',
  'ApiHttpApiGETcustomerscustomeridCustomersIntegration86D9F197',
  'ApiHttpApiGETtransactionstransactionid1394DA87',
  'ApiHttpApiGETtransactionstransactionidTransactionsIntegrationA8CCC2A8',
  'DataAccessLogsBucketC3B60382',
  'DataAccessLogsBucketPolicyF50EEAB2',
  'DataFilesBucketB56395FD',
  'DataFilesBucketPolicy2A3D7BFB',
  'DataTableFDBAD0F2',
  'IdentityUserPool96FE3B9B',
  'IdentityUserPoolApiClient11B43C55',
  'IdentityUserPoolCustomerReaders0AA82D4D',
];

const KEPT_TYPES = [
  'AWS::DynamoDB::Table',
  'AWS::S3::Bucket',
  'AWS::Cognito::UserPool',
  'AWS::Logs::LogGroup',
];

describe('stages', () => {
  test('no stage: the stack keeps its name and every resource its logical id', () => {
    expect(prod().stack.stackName).toBe('CurrencyExchangeReadApi');
    expect(prod().stack.artifactId).toBe('CurrencyExchangeReadApi');
    for (const id of DEPLOYED_BEFORE_STAGES)
      expect([id, id in prod().json.Resources]).toEqual([id, true]);
  });

  test('a named stage is its own stack, and the names set in the template derive from it', () => {
    expect(dev().stack.stackName).toBe('CurrencyExchangeReadApi-dev');
    const named = (s: Synthesized) =>
      [
        ...resourcesOf(s.json, 'AWS::CloudWatch::Alarm').map(([, r]) => r.Properties!.AlarmName),
        // With the region: test/infra/checks/deploy-rules.ts.
        (
          onlyResource(s.json, 'AWS::CloudWatch::Dashboard')[1].Properties!.DashboardName[
            'Fn::Join'
          ][1] as string[]
        )[0],
        ...resourcesOf(s.json, 'AWS::Logs::MetricFilter').map(
          ([, r]) => r.Properties!.MetricTransformations[0].MetricNamespace,
        ),
      ] as string[];
    for (const name of named(prod())) expect(name).toMatch(/^CurrencyExchangeReadApi(?!-dev)/);
    for (const name of named(dev())) expect(name).toMatch(/^CurrencyExchangeReadApi-dev\b/);
    // Everything else is named by CloudFormation from the stack name (test/infra/checks/api.ts
    // checks that no physical name is hard-coded).
  });

  test('default: data, users and logs are retained and protected; only the page bucket is emptied', () => {
    // Kept on delete and replacement; a rolled-back create keeps only what it could not delete
    // (test/infra/checks/rollback.ts). The staff page bucket holds only a build: it goes.
    const page = prod().logicalId(prod().stack.staffApp.bucket);
    for (const type of KEPT_TYPES)
      for (const [id, r] of resourcesOf(prod().json, type).filter(([id]) => id !== page))
        expect([
          id,
          ['Retain', 'RetainExceptOnCreate'].includes(r.DeletionPolicy!),
          r.UpdateReplacePolicy,
        ]).toEqual([id, true, 'Retain']);
    expect(
      onlyResource(prod().json, 'AWS::DynamoDB::Table')[1].Properties!.DeletionProtectionEnabled,
    ).toBe(true);
    expect(
      onlyResource(prod().json, 'AWS::Cognito::UserPool')[1].Properties!.DeletionProtection,
    ).toBe('ACTIVE');
    expect(prod().json.Resources[page]!.DeletionPolicy).toBe('Delete');
    expect(
      resourcesOf(prod().json, 'Custom::S3AutoDeleteObjects').map(
        ([, r]) => r.Properties!.BucketName,
      ),
    ).toEqual([{ Ref: page }]);
  });

  test('disposable: cdk destroy removes the whole stage, buckets emptied first', () => {
    for (const type of [...KEPT_TYPES, 'AWS::KMS::Key']) {
      for (const [id, r] of resourcesOf(dev().json, type)) {
        expect([id, r.DeletionPolicy]).toEqual([id, 'Delete']);
      }
    }
    expect(
      onlyResource(dev().json, 'AWS::DynamoDB::Table')[1].Properties!.DeletionProtectionEnabled,
    ).toBe(false);
    expect(
      onlyResource(dev().json, 'AWS::Cognito::UserPool')[1].Properties!.DeletionProtection,
    ).toBe('INACTIVE');
    const emptied = resourcesOf(dev().json, 'Custom::S3AutoDeleteObjects').map(
      ([, r]) => r.Properties!.BucketName.Ref as string,
    );
    expect(emptied.sort()).toEqual(
      resourcesOf(dev().json, 'AWS::S3::Bucket')
        .map(([id]) => id)
        .sort(),
    );
  });

  test.each([
    ['Dev', /lower-case letters/],
    ['-dev', /starting with a letter/],
    ['dev--x', /single hyphens/],
    ['dev_x', /lower-case letters/],
    ['a-very-long-stage-name-x', /1 to 20/],
    ['', /Omit -c stage/],
  ])('synth refuses the stage name %j with the reason', (stage, reason) => {
    expect(() =>
      createApp({ outdir: scratchOutdir(), context: { ...CDK_JSON_CONTEXT, stage } }),
    ).toThrow(reason);
  });

  test('synth refuses disposable without a stage, a disposable that is not true/false, a bad e-mail', () => {
    expect(() => makeStage({ disposable: true })).toThrow(/needs a named stage/);
    expect(() =>
      createApp({
        outdir: scratchOutdir(),
        context: { ...CDK_JSON_CONTEXT, stage: 'x', disposable: 'yes' },
      }),
    ).toThrow(SettingsError);
    expect(() => makeStage({ name: 'x', alarmEmail: 'ops at example.com' })).toThrow(/e-mail/);
    expect(makeStage({ name: 'test-2', disposable: true })).toMatchObject({
      stackName: 'CurrencyExchangeReadApi-test-2',
      disposable: true,
    });
  });
});
