/**
 * PROVISIONAL (RUNTIME helper, until INFRA's lib/import-workflow.ts lands; theirs replaces this
 * file whole): the import's workflow in Amazon States Language, as IMPORT-CONTRACT.md fixes it.
 * One definition for the stage (CDK, ARNs as tokens) and the local runner (local ARNs).
 */
export interface ImportWorkflowResources {
  planFunctionArn: string;
  checkPartFunctionArn: string;
  verifyFunctionArn: string;
  writePartFunctionArn: string;
  reportFunctionArn: string;
  importBucketName: string;
  alarmTopicArn: string;
  concurrency: number;
}

const retry = [
  {
    ErrorEquals: [
      'Lambda.ServiceException',
      'Lambda.AWSLambdaException',
      'Lambda.SdkClientException',
      'Lambda.TooManyRequestsException',
    ],
    IntervalSeconds: 2,
    MaxAttempts: 6,
    BackoffRate: 2,
    JitterStrategy: 'FULL',
  },
  { ErrorEquals: ['States.TaskFailed'], IntervalSeconds: 5, MaxAttempts: 3, BackoffRate: 2 },
];
const onFailure = [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'ReportFailure' }];

const task = (resource: string, rest: Record<string, unknown>) => ({
  Type: 'Task',
  Resource: resource,
  Retry: retry,
  ...rest,
});

const partMap = (r: ImportWorkflowResources, step: string, functionArn: string, next: string) => ({
  Type: 'Map',
  ItemReader: {
    Resource: 'arn:aws:states:::s3:getObject',
    ReaderConfig: { InputType: 'JSON' },
    Parameters: { Bucket: r.importBucketName, 'Key.$': '$.plan.manifestKey' },
  },
  ItemSelector: {
    'importId.$': '$.plan.importId',
    'bucket.$': '$.bucket',
    'key.$': '$.key',
    'versionId.$': '$.versionId',
    'part.$': '$$.Map.Item.Value',
  },
  MaxConcurrency: r.concurrency,
  ItemProcessor: {
    ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
    StartAt: step,
    States: { [step]: task(functionArn, { End: true }) },
  },
  ResultPath: null,
  Retry: retry,
  Catch: onFailure,
  Next: next,
});

const reportParameters = (outcome: string | null) => ({
  'importId.$': '$.plan.importId',
  'bucket.$': '$.bucket',
  'key.$': '$.key',
  'versionId.$': '$.versionId',
  'sha256.$': '$.plan.sha256',
  'startedAt.$': '$.plan.startedAt',
  ...(outcome === null ? { 'outcome.$': '$.outcome' } : { outcome }),
  'input.$': '$',
});

export function importWorkflowDefinition(r: ImportWorkflowResources): Record<string, unknown> {
  return {
    Comment: 'Import of one file version from the import drop (SPEC 9)',
    StartAt: 'Plan',
    States: {
      Plan: task(r.planFunctionArn, {
        ResultPath: '$.plan',
        Catch: onFailure,
        Next: 'AlreadyImported',
      }),
      AlreadyImported: {
        Type: 'Choice',
        Choices: [{ Variable: '$.plan.alreadyImported', IsPresent: true, Next: 'Done' }],
        Default: 'CheckParts',
      },
      CheckParts: partMap(r, 'CheckPart', r.checkPartFunctionArn, 'Verify'),
      Verify: task(r.verifyFunctionArn, {
        Parameters: {
          'importId.$': '$.plan.importId',
          'bucket.$': '$.bucket',
          'key.$': '$.key',
          'versionId.$': '$.versionId',
          'parts.$': '$.plan.parts',
        },
        ResultPath: '$.verify',
        Catch: onFailure,
        Next: 'IsValid',
      }),
      IsValid: {
        Type: 'Choice',
        Choices: [{ Variable: '$.verify.valid', BooleanEquals: false, Next: 'Rejected' }],
        Default: 'WriteParts',
      },
      Rejected: { Type: 'Pass', Parameters: reportParameters('rejected'), Next: 'Report' },
      WriteParts: partMap(r, 'WritePart', r.writePartFunctionArn, 'Imported'),
      Imported: { Type: 'Pass', Parameters: reportParameters('imported'), Next: 'Report' },
      ReportFailure: {
        Type: 'Pass',
        Parameters: {
          'bucket.$': '$.bucket',
          'key.$': '$.key',
          'versionId.$': '$.versionId',
          outcome: 'failed',
          'error.$': '$.error',
          'input.$': '$',
        },
        Next: 'Report',
      },
      Report: task(r.reportFunctionArn, { ResultPath: '$.report', Next: 'Notify' }),
      Notify: {
        Type: 'Choice',
        Choices: [{ Variable: '$.report.outcome', StringEquals: 'imported', Next: 'Done' }],
        Default: 'Alert',
      },
      Alert: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sns:publish',
        Parameters: {
          TopicArn: r.alarmTopicArn,
          'Message.$':
            "States.Format('Import {} ended {}: see {}', $.report.reportKey, $.report.outcome, $.report.reportKey)",
        },
        ResultPath: null,
        Next: 'Failed',
      },
      Failed: {
        Type: 'Fail',
        Error: 'ImportNotImported',
        Cause: 'The import was not imported whole',
      },
      Done: { Type: 'Succeed' },
    },
  };
}
