import { ArnFormat, Duration, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventField, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, type LogGroup, MetricFilter, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import {
  DefinitionBody,
  LogLevel,
  StateMachine,
  StateMachineType,
} from 'aws-cdk-lib/aws-stepfunctions';
import type { MonitoringFacade } from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { ENTITIES } from '../core/entities.ts';
import { IMPORT_AUDIT_MESSAGE } from '../import/audit.ts';
import { PREFIX } from '../import/steps/work-folder.ts';
import { IMPORT_STEPS, type ImportStep } from '../import/steps/step.ts';
import { ProjectFunction } from './project-function.ts';
import { grantKeyThroughS3, stageKey, type S3KeyAction } from './keys.ts';
import { PRIVATE_BUCKET, earlierVersionsRule } from './data.ts';
import { FILE_PREFIXES } from '../core/file-keys.ts';
import {
  importWorkflowDefinition,
  type ImportWorkflowResources,
} from '../stage/import-workflow.ts';
import { THRESHOLDS } from './monitoring.ts';
import { IMPORT_RETENTION, INCOMPLETE_UPLOAD_DAYS } from '../core/retention.ts';
import { AUDIT_RETENTION, removalPolicyFor } from './retention.ts';
import { vendedLogGroup } from './vended-logs.ts';
import { FUNCTION_ENV, displayTimeEnv } from '../core/function-env.ts';

export interface ImportDropProps {
  readonly projectRoot: string;
  readonly table: ITable;
  readonly alarmTopic: ITopic;
  readonly displayTimeZone: string;
  readonly concurrency: number;
  /** A test stage (stage/stage.ts): its bucket, key and logs go with it, the bucket emptied. */
  readonly disposable: boolean;
  readonly accessLogsBucket: IBucket;
  /** The files records name: CheckPart lists their keys (never reads a file) to warn of missing ones. */
  readonly filesBucket: IBucket;
  /** Settings `importFileCheck`: false leaves CheckPart without the files bucket. */
  readonly checkFiles: boolean;
  readonly logRetention?: RetentionDays;
}

/**
 * The import drop of a stage (SPEC 9): a private bucket where a file put under `incoming/` starts
 * one import of that object version (EventBridge → Step Functions), the workflow of
 * stage/import-workflow.ts and its five functions, which are the only code in the stage that may
 * write records.
 */
export class ImportDrop extends Construct {
  readonly bucket: Bucket;
  /**
   * The import bucket's own key, not the files bucket's: whoever may upload imports or read their
   * reports need not be able to decrypt an ID photo, nor the API's functions an upload.
   */
  readonly key: Key;
  readonly stateMachine: StateMachine;
  readonly functions: ReadonlyMap<ImportStep, ProjectFunction>;
  /** The workflow's execution log: part of the audit trail (lib/retention.ts protectAuditTrail). */
  readonly workflowLogGroup: LogGroup;
  /**
   * Upload events the rule could not deliver to the workflow after its retries (a dropped event:
   * no import, no report): kept 14 days, SQS's most, each naming the upload; the alarm
   * "ImportDropped" fires on the first (docs/operations/loading-records.md says what to do).
   */
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ImportDropProps) {
    super(scope, id);
    this.key = stageKey(this, 'Key', {
      description: 'The import bucket: uploads, work files, reports',
      // Goes only with the bucket: a kept upload or report stays readable after a destroy.
      disposable: props.disposable,
    });
    this.bucket = new Bucket(this, 'Bucket', {
      // An upload holds every field of the customers it imports: under a key the business
      // controls and audits in CloudTrail, used only through S3 (grantKeyThroughS3), as the files.
      ...PRIVATE_BUCKET,
      encryption: BucketEncryption.KMS,
      encryptionKey: this.key,
      // One KMS request per bucket key rather than per object (a part, a work file).
      bucketKeyEnabled: true,
      // An import is of one object version: a re-upload under the same key is a new import.
      versioned: true,
      eventBridgeEnabled: true,
      removalPolicy: removalPolicyFor(props.disposable),
      autoDeleteObjects: props.disposable,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'import-bucket/',
      lifecycleRules: [
        ...[PREFIX.incoming, PREFIX.work].map((prefix) => ({
          id: `expire-${prefix.replace('/', '')}`,
          prefix,
          expiration: Duration.days(IMPORT_RETENTION.filesDays),
          abortIncompleteMultipartUploadAfter: Duration.days(INCOMPLETE_UPLOAD_DAYS),
        })),
        {
          id: 'expire-reports',
          prefix: PREFIX.reports,
          expiration: Duration.days(IMPORT_RETENTION.reportsDays),
        },
        // Every prefix's earlier versions, then the delete markers left behind them.
        earlierVersionsRule(IMPORT_RETENTION.noncurrentDays),
      ],
    });

    const environment = {
      [FUNCTION_ENV.tableName]: props.table.tableName,
      ...displayTimeEnv(props.displayTimeZone),
      ...(props.checkFiles ? { [FUNCTION_ENV.filesBucket]: props.filesBucket.bucketName } : {}),
    };
    const functions = new Map<ImportStep, ProjectFunction>();
    for (const [step, spec] of Object.entries(IMPORT_STEPS) as [
      ImportStep,
      (typeof IMPORT_STEPS)[ImportStep],
    ][]) {
      const fn = new ProjectFunction(this, `${step}Function`, {
        entry: `${props.projectRoot}/functions/${spec.entry}.ts`,
        projectRoot: props.projectRoot,
        environment,
        description: `Import step ${step} (SPEC 9)`,
        memorySize: spec.memoryMb,
        timeout: Duration.seconds(spec.timeoutSeconds),
        logRetention: props.logRetention,
        logRemovalPolicy: removalPolicyFor(props.disposable),
      });
      functions.set(step, fn);
    }
    this.functions = functions;
    const fn = (step: ImportStep) => functions.get(step)!;

    // What each step reads and writes in the bucket (import/steps/work-folder.ts).
    const uploads = this.objects(PREFIX.incoming);
    const work = this.objects(PREFIX.work);
    const reports = this.objects(PREFIX.reports);
    this.allow(fn('Plan'), ['s3:GetObject', 's3:GetObjectVersion'], [uploads, reports]);
    // The upload's claim (work/<id>/claim.json), read when another execution's put was first.
    this.allow(fn('Plan'), ['s3:GetObject'], [work]);
    this.allow(fn('Plan'), ['s3:PutObject'], [work]);
    this.allow(fn('CheckPart'), ['s3:GetObject', 's3:GetObjectVersion'], [uploads]);
    this.allow(fn('CheckPart'), ['s3:PutObject'], [work]);
    this.allow(fn('Verify'), ['s3:GetObject', 's3:PutObject'], [work]);
    this.allow(fn('WritePart'), ['s3:GetObject'], [work]);
    this.allow(fn('WritePart'), ['s3:PutObject'], [work]);
    this.allow(fn('Report'), ['s3:GetObject'], [work, reports]);
    // A failed import's cancel marker, which stops its parts still writing.
    this.allow(fn('Report'), ['s3:PutObject'], [work]);
    this.allow(fn('Report'), ['s3:PutObject'], [reports]);
    for (const [step, actions] of this.keyUse) grantKeyThroughS3(step, this.bucket, [...actions]);
    // A missing object is then NoSuchKey, not AccessDenied: the steps read work files that may
    // not exist yet (a first run) and tell the two apart.
    for (const step of functions.values())
      step.addToRolePolicy(
        new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
      );
    // The names of the files records may hold (core/file-keys.ts), not the files themselves.
    if (props.checkFiles)
      fn('CheckPart').addToRolePolicy(
        new PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [props.filesBucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': FILE_PREFIXES.map((prefix) => `${prefix}*`) } },
        }),
      );
    grantRecordWrite(fn('WritePart'), props.table);

    const stack = Stack.of(this);
    const resources: ImportWorkflowResources = {
      partition: stack.partition,
      planFunctionArn: fn('Plan').functionArn,
      checkPartFunctionArn: fn('CheckPart').functionArn,
      verifyFunctionArn: fn('Verify').functionArn,
      writePartFunctionArn: fn('WritePart').functionArn,
      reportFunctionArn: fn('Report').functionArn,
      importBucketName: this.bucket.bucketName,
      alarmTopicArn: props.alarmTopic.topicArn,
      concurrency: props.concurrency,
    };
    // Named after the stack (as the alarms are, stage/stage.ts): the Distributed Maps start child
    // executions of this state machine, and its role can name it only by a name known up front.
    const stateMachineName = `${stack.stackName}-Import`;
    const arn = (resource: string, resourceName: string) =>
      stack.formatArn({
        service: 'states',
        resource,
        resourceName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    this.workflowLogGroup = vendedLogGroup(this, 'WorkflowLogs', {
      service: 'states',
      retention: props.logRetention ?? AUDIT_RETENTION,
      removalPolicy: removalPolicyFor(props.disposable),
    });
    this.stateMachine = new StateMachine(this, 'Workflow', {
      stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(
        stack.toJsonString(importWorkflowDefinition(resources)),
      ),
      tracingEnabled: true,
      logs: {
        destination: this.workflowLogGroup,
        // Every state's events, never its input or output (records' lines pass through them).
        level: LogLevel.ALL,
        includeExecutionData: false,
      },
    });
    // Its own five functions by ARN (no version wildcard), and the manifest the Maps read.
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [...functions.values()].map((step) => step.functionArn),
      }),
    );
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [work] }),
    );
    grantKeyThroughS3(this.stateMachine, this.bucket, ['kms:Decrypt']);
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:StartExecution'],
        resources: [arn('stateMachine', stateMachineName)],
      }),
    );
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:DescribeExecution', 'states:StopExecution'],
        resources: [arn('execution', `${stateMachineName}/*`)],
      }),
    );
    props.alarmTopic.grantPublish(this.stateMachine);
    const workflowRole = this.stateMachine.role;
    const bucketId = stack.getLogicalId(this.bucket.node.defaultChild as CfnElement);
    for (const [id, reason] of [
      [
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray tracing and log delivery (xray:PutTraceSegments, logs:CreateLogDelivery...) ' +
          'define no resource types, so they cannot be scoped to an ARN.',
      ],
      [
        `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/work/*]`,
        "The Distributed Maps read the import's manifest under work/<import id>/, an id known " +
          'only when the import runs.',
      ],
      [
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${stateMachineName}/*]`,
        "The Distributed Maps' child executions of this state machine, named when they start.",
      ],
      [
        'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
        "Publishing to the alarm topic encrypts with the topic's own key (and only that key).",
      ],
    ] as const)
      Validations.of(workflowRole).acknowledge({ id, reason });

    // "Who put the file there" (SPEC 9): S3's event names only the account; the bucket's server
    // access logs (above) name the IAM principal of each PUT, found by the S3 request id that the
    // "import started" audit event keeps (docs/operations.md). No CloudTrail trail: an account
    // may hold 5 per region, and a stage must deploy beside an organisation's own.

    // Turning EventBridge on for the bucket is done by CDK's own custom resource, a Lambda
    // function with the AWS-managed basic execution role (logs only), one per stack.
    for (const child of stack.node.children)
      if (child.node.id.startsWith('BucketNotificationsHandler'))
        Validations.of(child.node.findChild('Role')).acknowledge({
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason:
            "CDK's bucket-notifications handler (it turns on the import bucket's EventBridge " +
            'notifications at deploy time) runs with the basic execution role: logs only.',
        });

    this.deadLetterQueue = new Queue(this, 'DroppedUploads', {
      // SQS's own key: EventBridge may send to it with no key policy of ours.
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(DROPPED_UPLOAD_DAYS),
      removalPolicy: removalPolicyFor(props.disposable),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is the import rule's dead-letter queue: what lands in it is read by a person " +
        '(docs/operations/loading-records.md), never redriven to another queue.',
    });
    new Rule(this, 'OnUpload', {
      description: 'A file put under incoming/ of the import bucket starts one import (SPEC 9)',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: {
          bucket: { name: [this.bucket.bucketName] },
          object: { key: [{ prefix: PREFIX.incoming }] },
        },
      },
      targets: [
        new SfnStateMachine(this.stateMachine, {
          input: RuleTargetInput.fromObject({
            bucket: EventField.fromPath('$.detail.bucket.name'),
            key: EventField.fromPath('$.detail.object.key'),
            versionId: EventField.fromPath('$.detail.object.version-id'),
            size: EventField.fromPath('$.detail.object.size'),
            requester: EventField.fromPath('$.detail.requester'),
            sourceIp: EventField.fromPath('$.detail.source-ip-address'),
            s3RequestId: EventField.fromPath('$.detail.request-id'),
            // With the sequencer, the import's version (core/import-version.ts).
            eventTime: EventField.fromPath('$.time'),
            sequencer: EventField.fromPath('$.detail.object.sequencer'),
          }),
          // EventBridge's most, said rather than left to a default: a day of retries, counted in
          // the horizon (core/import-version.ts), then the dead-letter queue.
          retryAttempts: RULE_RETRY.attempts,
          deadLetterQueue: this.deadLetterQueue,
          maxEventAge: Duration.hours(RULE_RETRY.hours),
        }),
      ],
    });
  }

  /**
   * The imports on the stage's dashboard and alarm topic (SPEC 9): executions running, succeeded
   * and failed, records written (from the "import ended" audit events), and an alarm when an
   * execution fails, times out or is aborted. A rejected or failed import also publishes its own
   * message to the topic (the workflow's Alert state) naming its report.
   */
  monitor(facade: MonitoringFacade, name: string): void {
    const period = THRESHOLDS.period;
    const once = {
      maxErrorCount: 0,
      datapointsToAlarm: 1,
      evaluationPeriods: 1,
      period,
      treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
    };
    const look =
      'First look: the report under reports/ of the import bucket (ImportBucketName) and the ' +
      "execution's events in the Step Functions console; to try again, put the same file again " +
      '(a record already written is written again, the same).';
    facade.addLargeHeader('Imports (SPEC 9)');
    facade.monitorStepFunction({
      stateMachine: this.stateMachine,
      alarmFriendlyName: 'Import',
      humanReadableName: 'Import workflow',
      addFailedExecutionCountAlarm: {
        Critical: {
          ...once,
          alarmDescriptionOverride: `An import ended failed or rejected: nothing, or not all, of its file was written. ${look}`,
        },
      },
      addTimedOutExecutionCountAlarm: {
        Critical: {
          ...once,
          alarmDescriptionOverride: `An import timed out before its report was written. ${look}`,
        },
      },
      addAbortedExecutionCountAlarm: {
        Critical: {
          ...once,
          alarmDescriptionOverride: `An import was stopped by hand or by AWS. ${look}`,
        },
      },
    });
    facade.monitorSqsQueue({
      queue: this.deadLetterQueue,
      alarmFriendlyName: 'ImportDropped',
      humanReadableName: 'Upload events not delivered to the import workflow',
      addQueueMaxSizeAlarm: {
        Critical: {
          maxMessageCount: 0,
          datapointsToAlarm: 1,
          evaluationPeriods: 1,
          period,
          treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
          alarmDescriptionOverride:
            'An upload under incoming/ started no import: EventBridge could not start the ' +
            'workflow (a day of retries, or at once for an error no retry mends) and left the ' +
            'event in the dead-letter queue DroppedUploads (kept 14 days). First look: the ' +
            "message's attributes ERROR_CODE and ERROR_MESSAGE say why; its body names the " +
            'upload (bucket, key, version). Then put the file again, or start the state machine ' +
            'by hand with the input the rule would have given (docs/operations/loading-records.md, ' +
            '"A dropped upload event").',
        },
      },
    });
    const written = new MetricFilter(this, 'RecordsWritten', {
      logGroup: this.functions.get('Report')!.logGroup,
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.message', '=', IMPORT_AUDIT_MESSAGE),
        FilterPattern.stringValue('$.kind', '=', 'import-ended'),
      ),
      metricNamespace: name,
      metricName: 'ImportRecordsWritten',
      metricValue: '$.counts.records',
      defaultValue: 0,
    });
    facade.monitorCustom({
      alarmFriendlyName: 'ImportRecords',
      humanReadableName: 'Records written by imports (from the "import ended" audit events)',
      metricGroups: [
        {
          title: 'Records written',
          metrics: [written.metric({ statistic: 'Sum', period, label: 'records written' })],
        },
      ],
    });
  }

  /** The ARN pattern of the bucket's objects under `prefix`. */
  private objects(prefix: string): string {
    return this.bucket.arnForObjects(`${prefix}*`);
  }

  /** What each step's role asks of the bucket's key, from the S3 actions it is allowed. */
  private readonly keyUse = new Map<ProjectFunction, Set<S3KeyAction>>();

  private allow(fn: ProjectFunction, actions: string[], resources: string[]): void {
    fn.addToRolePolicy(new PolicyStatement({ actions, resources }));
    const keyUse = this.keyUse.get(fn) ?? new Set<S3KeyAction>();
    for (const action of actions) {
      const use = KEY_USE[action];
      if (!use) throw new Error(`${action}: say in KEY_USE what it asks of the key`);
      keyUse.add(use);
    }
    this.keyUse.set(fn, keyUse);
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
    for (const resource of resources) {
      const prefix = resource.split('/').at(-2) ?? '';
      Validations.of(fn.role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${prefix}/*]`,
        reason:
          `The import step reads or writes the ${prefix}/ objects of the import bucket, whose keys ` +
          '(file names, import ids) are not known at deploy time.',
      });
    }
  }
}

/** The rule's retries: EventBridge's most (185 attempts, 24 hours), then the dead-letter queue. */
export const RULE_RETRY = { attempts: 185, hours: 24 } as const;
/** How long an undelivered upload event is kept: SQS's most. */
export const DROPPED_UPLOAD_DAYS = 14;

/** What S3 asks of the bucket's key for each object action a step may take. */
const KEY_USE: Record<string, S3KeyAction> = {
  's3:GetObject': 'kms:Decrypt',
  's3:GetObjectVersion': 'kms:Decrypt',
  's3:PutObject': 'kms:GenerateDataKey',
};

/**
 * The writes import/writer.ts makes, on records only: an UpdateItem per record, on condition that
 * its key is a record's (`TXN#`, `CUS#`): the import can neither read nor write a user's access state
 * (`USER#`).
 */
function grantRecordWrite(fn: ProjectFunction, table: ITable): void {
  const prefixes = Object.values(ENTITIES).map((entity) => `${entity.keys.partition}*`);
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes },
        Null: { 'dynamodb:LeadingKeys': 'false' },
      },
    }),
  );
}
