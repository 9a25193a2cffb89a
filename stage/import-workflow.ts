/**
 * The import's workflow in Amazon States Language (SPEC 9): Plan (the file's parts, in a manifest),
 * CheckParts (a Distributed Map over the manifest: the first pass), Verify (the parts' findings
 * merged, duplicates across parts included), WriteParts (the second pass, only for a valid file),
 * Report (`reports/<import id>.json`), and on any other outcome an alert on the alarm topic. Plan
 * first claims the upload for the execution: a second execution of it (a repeated event) ends as
 * Duplicate, having written nothing.
 * One definition for the stage (lib/import-drop.ts, ARNs as tokens) and the local runner
 * (local/step-functions/import-runner.ts, local ARNs); test/unit/import-workflow.test.ts runs its control flow.
 */
import { IMPORT_TIMEOUT_SECONDS, IMPORT_STEPS } from '../import/steps/step.ts';

export interface ImportWorkflowResources {
  /** The stage's partition (`aws`, `aws-cn`, `aws-us-gov`): service integrations' ARNs name it. */
  partition: string;
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
  // A step that stopped on purpose (its time limit near, its import failed) would stop again.
  { ErrorEquals: ['ImportStopped'], MaxAttempts: 0 },
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

type Step = keyof typeof IMPORT_STEPS;

/**
 * The alert's SNS publish: a request of well under a second, given ample room and still its own
 * limit, as every Task states one (an emulator's default would decide it otherwise).
 */
export const ALERT_TIMEOUT_SECONDS = 30;

/**
 * A step's Task: its own TimeoutSeconds, its function's timeout, so that neither Step Functions
 * nor a local interpreter (aws-local-stepfunctions cuts a Task at 60 s when none is set) ends it
 * at another time than Lambda would.
 */
const task = (step: Step, resource: string, rest: Record<string, unknown>) => ({
  Type: 'Task',
  Resource: resource,
  TimeoutSeconds: IMPORT_STEPS[step].timeoutSeconds,
  Retry: retry,
  ...rest,
});

/**
 * The execution attempt a step runs in: the execution's ARN, which a redrive keeps, and its
 * redrive count, read when the state runs. A redrive's parts and Report so know they are the
 * redrive's, and a failed attempt's cancel marker stops that attempt's parts only
 * (import/steps/work-folder.ts).
 */
const attempt = {
  'execution.$': '$.execution.id',
  'redriveCount.$': '$$.Execution.RedriveCount',
};

/** The object's key as Plan found it in the bucket (the event's may be URL-encoded). */
const fileParameters = {
  'importId.$': '$.plan.importId',
  'bucket.$': '$.bucket',
  'key.$': '$.plan.key',
  'versionId.$': '$.versionId',
};

const partMap = (
  r: ImportWorkflowResources,
  step: 'CheckPart' | 'WritePart',
  functionArn: string,
  next: string,
) => ({
  Type: 'Map',
  ItemReader: {
    Resource: `arn:${r.partition}:states:::s3:getObject`,
    ReaderConfig: { InputType: 'JSON' },
    Parameters: { Bucket: r.importBucketName, 'Key.$': '$.plan.manifestKey' },
  },
  ItemSelector: {
    ...fileParameters,
    'version.$': '$.plan.version',
    'part.$': '$$.Map.Item.Value',
    ...attempt,
  },
  MaxConcurrency: r.concurrency,
  ItemProcessor: {
    ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
    StartAt: step,
    States: { [step]: task(step, functionArn, { End: true }) },
  },
  ResultPath: null,
  Retry: retry,
  Catch: onFailure,
  Next: next,
});

const reportParameters = (outcome: string | null) => ({
  ...fileParameters,
  'sha256.$': '$.plan.sha256',
  'startedAt.$': '$.plan.startedAt',
  ...(outcome === null ? { 'outcome.$': '$.outcome' } : { outcome }),
  'input.$': '$',
  'redriveCount.$': '$$.Execution.RedriveCount',
});

/**
 * ReportFallback's input: Report's own, its state (`input`) included, but the outcome `failed`
 * and `reportFailed` the name of Report's error (never its cause, which may quote the file).
 */
const reportFallback = {
  Parameters: {
    'bucket.$': '$.bucket',
    'key.$': '$.key',
    'versionId.$': '$.versionId',
    outcome: 'failed',
    'reportFailed.$': '$.reportError.Error',
    'input.$': '$.input',
  },
  ResultPath: '$.report',
};

export function importWorkflowDefinition(r: ImportWorkflowResources): Record<string, unknown> {
  return {
    Comment: 'Import of one file version from the import drop (SPEC 9)',
    TimeoutSeconds: IMPORT_TIMEOUT_SECONDS,
    StartAt: 'Start',
    States: {
      // The execution's ARN beside the event, for every state after: Plan claims the upload for it.
      Start: {
        Type: 'Pass',
        Parameters: { 'id.$': '$$.Execution.Id' },
        ResultPath: '$.execution',
        Next: 'Plan',
      },
      Plan: task('Plan', r.planFunctionArn, {
        ResultPath: '$.plan',
        Catch: onFailure,
        Next: 'AlreadyImported',
      }),
      AlreadyImported: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.plan.alreadyImported', IsPresent: true, Next: 'Done' },
          { Variable: '$.plan.claimedBy', IsPresent: true, Next: 'Duplicate' },
        ],
        Default: 'CheckParts',
      },
      CheckParts: partMap(r, 'CheckPart', r.checkPartFunctionArn, 'Verify'),
      Verify: task('Verify', r.verifyFunctionArn, {
        Parameters: { ...fileParameters, 'parts.$': '$.plan.parts' },
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
          'redriveCount.$': '$$.Execution.RedriveCount',
        },
        Next: 'Report',
      },
      Report: task('Report', r.reportFunctionArn, {
        ResultPath: '$.report',
        Catch: [
          { ErrorEquals: ['States.ALL'], ResultPath: '$.reportError', Next: 'ReportFallback' },
        ],
        Next: 'Notify',
      }),
      // When Report itself fails (an exception, its time limit, its memory), the same function
      // runs again, told only the error's name. It then writes a report that says so and reads
      // nothing (import/steps/report.ts).
      ReportFallback: task('Report', r.reportFunctionArn, { ...reportFallback, Next: 'Notify' }),
      Notify: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.report.outcome', StringEquals: 'imported', Next: 'Done' },
          // A repeated event's execution that failed before it found the claim: the execution
          // holding it imports the upload, and alerts if that fails.
          { Variable: '$.report.claimedBy', IsPresent: true, Next: 'Duplicate' },
        ],
        Default: 'Alert',
      },
      Alert: {
        Type: 'Task',
        Resource: `arn:${r.partition}:states:::sns:publish`,
        TimeoutSeconds: ALERT_TIMEOUT_SECONDS,
        Parameters: {
          TopicArn: r.alarmTopicArn,
          'Message.$':
            "States.Format('Import {} ended {}: see {} in the import bucket', $.report.importId, $.report.outcome, $.report.reportKey)",
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
      // Another execution of the same upload (a repeated event) holds its claim and imports it.
      Duplicate: { Type: 'Succeed' },
    },
  };
}
