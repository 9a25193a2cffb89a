/**
 * The import drop in the template (SPEC 9, lib/import-drop.ts): the bucket and its key, the rule
 * that starts an import, the workflow as synthesized (checked by a real ASL validator), who may
 * write records or use the key, the alarm, the saved change queries, and the operator policy
 * docs/operations/loading-records.md gives.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import aslValidator from 'asl-validator';
import { IMPORT_QUERIES } from '../../../lib/audit.ts';
import { IMPORT_RETENTION } from '../../../core/retention.ts';
import { FILE_PREFIXES } from '../../../core/file-keys.ts';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { keysUnder, PREFIX } from '../../../import/steps/work-folder.ts';
import {
  definitionOf,
  resourcesOf,
  resourcesUnder,
  synthesize,
  type Json,
  type Synthesized,
} from '../synth.ts';

let s: Synthesized;
let few: Synthesized;
beforeAll(() => {
  s = synthesize();
  few = synthesize({ context: { importConcurrency: '3', importFileCheck: 'false' } });
}, 120_000);

const list = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

/** Every statement of the policies attached to a role. */
function statementsOf(json: Json, roleId: string): Json[] {
  return resourcesOf(json, 'AWS::IAM::Policy')
    .filter(([, p]) => p.Properties!.Roles.some((r: Json) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties!.PolicyDocument.Statement as Json[]);
}

test('the bucket: private, on its own key, TLS only, versioned, EventBridge on, files kept 30 days', () => {
  const id = s.logicalId(s.stack.importDrop.bucket);
  const bucket = s.json.Resources[id]!.Properties!;
  expect(bucket.PublicAccessBlockConfiguration).toEqual({
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  });
  // SSE-KMS under a key of this stack, not the files bucket's, with S3 Bucket Keys (whose
  // encryption context is the bucket's ARN, which the roles' conditions name).
  const keyId = s.logicalId(s.stack.importDrop.key);
  expect(keyId).not.toBe(s.logicalId(s.stack.data.filesKey));
  expect(s.json.Resources[keyId]!.Type).toBe('AWS::KMS::Key');
  expect(s.json.Resources[keyId]!.Properties!.EnableKeyRotation).toBe(true);
  expect(bucket.BucketEncryption).toEqual({
    ServerSideEncryptionConfiguration: [
      {
        ServerSideEncryptionByDefault: {
          SSEAlgorithm: 'aws:kms',
          KMSMasterKeyID: { 'Fn::GetAtt': [keyId, 'Arn'] },
        },
        BucketKeyEnabled: true,
      },
    ],
  });
  expect(s.json.Outputs!.ImportKeyArn!.Value).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  expect(bucket.VersioningConfiguration).toEqual({ Status: 'Enabled' });
  // CDK turns EventBridge notifications on through its bucket-notifications custom resource.
  const [, notifications] = resourcesOf(s.json, 'Custom::S3BucketNotifications').find(
    ([, r]) => r.Properties!.BucketName.Ref === id,
  )!;
  expect(notifications.Properties!.NotificationConfiguration).toEqual({
    EventBridgeConfiguration: {},
  });
  const rules = bucket.LifecycleConfiguration.Rules as Json[];
  const rule = (prefix: string) => rules.find((r) => r.Prefix === prefix);
  for (const prefix of [PREFIX.incoming, PREFIX.work])
    expect(rule(prefix)).toMatchObject({
      ExpirationInDays: IMPORT_RETENTION.filesDays,
      Status: 'Enabled',
    });
  expect(rule(PREFIX.reports)).toMatchObject({ ExpirationInDays: 1827 });
  // Every prefix's earlier versions, and the delete markers they leave, in one bucket-wide rule.
  expect(rules.filter((r) => r.Prefix === undefined)).toEqual([
    {
      Id: 'expire-earlier-versions',
      NoncurrentVersionExpiration: { NoncurrentDays: IMPORT_RETENTION.noncurrentDays },
      ExpiredObjectDeleteMarker: true,
      Status: 'Enabled',
    },
  ]);
  const [, policy] = resourcesOf(s.json, 'AWS::S3::BucketPolicy').find(
    ([, p]) => p.Properties!.Bucket.Ref === id,
  )!;
  expect(policy.Properties!.PolicyDocument.Statement).toContainEqual(
    expect.objectContaining({
      Effect: 'Deny',
      Action: 's3:*',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    }),
  );
});

/** Whether a statement names the resource of logical id `id`, by Ref or Fn::GetAtt. */
const names = (st: Json, id: string) =>
  list<Json>(st.Resource).some(
    (r) => JSON.stringify(r).includes(`"Ref":"${id}"`) || JSON.stringify(r).includes(`["${id}",`),
  );

test("the key is used only through S3, for this bucket, by the workflow's roles, each only for what it does", () => {
  const keyId = s.logicalId(s.stack.importDrop.key);
  const bucketId = s.logicalId(s.stack.importDrop.bucket);
  const bucketArn = { 'Fn::GetAtt': [bucketId, 'Arn'] };
  const users = new Map<string, string[]>();
  for (const [roleId] of resourcesOf(s.json, 'AWS::IAM::Role')) {
    const statements = statementsOf(s.json, roleId);
    // No role may use a KMS key it does not name: `*` would reach the import key too.
    for (const st of statements.filter((st) =>
      list<string>(st.Action).some((a) => a.startsWith('kms:')),
    ))
      expect([roleId, st.Resource]).not.toEqual([roleId, '*']);
    const onKey = statements.filter((st) => names(st, keyId));
    if (onKey.length === 0) continue;
    for (const st of onKey) {
      expect(st.Effect).toBe('Allow');
      expect(st.Resource).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
      expect(st.Condition).toEqual({
        StringEquals: {
          'kms:ViaService': {
            'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
          },
          'kms:EncryptionContext:aws:s3:arn': bucketArn,
        },
      });
    }
    // What S3 asks of the key for what the role may do in the bucket: a write generates a data
    // key, a read decrypts; nothing more.
    const onObjects = statements
      .filter((st) => names(st, bucketId))
      .flatMap((st) => list<string>(st.Action));
    const needed = [
      ...(onObjects.includes('s3:PutObject') ? ['kms:GenerateDataKey'] : []),
      ...(onObjects.some((a) => a.startsWith('s3:GetObject')) ? ['kms:Decrypt'] : []),
    ].sort();
    users.set(roleId, onKey.flatMap((st) => list<string>(st.Action)).sort());
    expect([roleId, users.get(roleId)]).toEqual([roleId, needed]);
  }
  // Exactly the roles that read or write the bucket's objects: the five steps and the workflow
  // (its Distributed Maps read the manifest). Not the API's functions, nor CDK's handlers.
  const { functions, stateMachine } = s.stack.importDrop;
  const roleOf = (role: unknown) => s.logicalId(role as never);
  expect([...users.keys()].sort()).toEqual(
    [...[...functions.values()].map((fn) => roleOf(fn.role)), roleOf(stateMachine.role)].sort(),
  );
  expect(users.get(roleOf(stateMachine.role))).toEqual(['kms:Decrypt']);
  for (const fn of s.stack.api.functions.values()) expect(users.has(roleOf(fn.role))).toBe(false);
  // The key's policy lets only the account (its IAM policies, above) use it: no service, no role.
  const allowed = list<Json>(s.json.Resources[keyId]!.Properties!.KeyPolicy.Statement).filter(
    (st) => st.Effect === 'Allow',
  );
  expect(allowed.map((st) => Object.keys(st.Principal))).toEqual([['AWS']]);
  expect(JSON.stringify(allowed[0].Principal.AWS)).toMatch(/:root"/);
});

test('an object created under incoming/ of this bucket, and only there, starts the workflow', () => {
  const [, rule] = resourcesUnder(s.json, 'AWS::Events::Rule', 'Import')[0]!;
  const { EventPattern: pattern, Targets: targets } = rule.Properties!;
  expect(pattern).toEqual({
    source: ['aws.s3'],
    'detail-type': ['Object Created'],
    detail: {
      bucket: { name: [{ Ref: s.logicalId(s.stack.importDrop.bucket) }] },
      // One prefix: EventBridge arrays are OR, so a second entry would widen the match.
      object: { key: [{ prefix: PREFIX.incoming }] },
    },
  });
  expect(targets).toHaveLength(1);
  expect(targets[0].Arn).toEqual({ Ref: s.logicalId(s.stack.importDrop.stateMachine) });
  const template = targets[0].InputTransformer.InputTemplate as string;
  for (const field of [
    'bucket',
    'key',
    'versionId',
    'size',
    'requester',
    'sourceIp',
    's3RequestId',
  ])
    expect(template).toContain(`"${field}":`);
  // The import's version comes from the upload as S3 tells it: the event's time and S3's
  // sequencer (core/import-version.ts), the same on every retry and redrive of the execution.
  const paths = targets[0].InputTransformer.InputPathsMap as Record<string, string>;
  const pathOf = (field: string) =>
    paths[new RegExp(`"${field}":\\s*<([^>]+)>`).exec(template)?.[1] ?? ''];
  expect([pathOf('eventTime'), pathOf('sequencer')]).toEqual([
    '$.time',
    '$.detail.object.sequencer',
  ]);
});

test('an event the rule cannot deliver goes, after a day of retries, to an encrypted queue kept 14 days that alarms', () => {
  const [, rule] = resourcesUnder(s.json, 'AWS::Events::Rule', 'Import')[0]!;
  const [target] = rule.Properties!.Targets as Json[];
  const queueId = s.logicalId(s.stack.importDrop.deadLetterQueue);
  expect(target!.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } });
  expect(target!.RetryPolicy).toEqual({
    MaximumRetryAttempts: 185,
    MaximumEventAgeInSeconds: 86_400,
  });
  const queue = s.json.Resources[queueId]!;
  expect(queue.Type).toBe('AWS::SQS::Queue');
  expect(queue.Properties).toMatchObject({
    SqsManagedSseEnabled: true,
    MessageRetentionPeriod: 14 * 24 * 3600,
  });
  // Only EventBridge, for this rule, may send to it; nothing without TLS.
  const statements = resourcesOf(s.json, 'AWS::SQS::QueuePolicy')
    .filter(([, p]) => (p.Properties!.Queues as Json[]).some((q) => q.Ref === queueId))
    .flatMap(([, p]) => p.Properties!.PolicyDocument.Statement as Json[]);
  const ruleId = resourcesUnder(s.json, 'AWS::Events::Rule', 'Import')[0]![0];
  expect(statements).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Principal: { Service: 'events.amazonaws.com' },
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
      }),
      expect.objectContaining({
        Effect: 'Deny',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    ]),
  );
  const alarms = resourcesOf(s.json, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);
  const alarm = alarms.find((a) =>
    JSON.stringify(a.Dimensions ?? a.Metrics ?? []).includes(
      JSON.stringify({ 'Fn::GetAtt': [queueId, 'QueueName'] }),
    ),
  );
  expect(alarm).toBeDefined();
  expect(alarm!.AlarmActions).toEqual([{ Ref: s.logicalId(s.stack.monitoring.topic) }]);
  expect(alarm!.AlarmDescription).toMatch(/put the file again/);
  expect([alarm!.Threshold, alarm!.ComparisonOperator]).toEqual([0, 'GreaterThanThreshold']);
});

test("the synthesized workflow is valid Amazon States Language with the stage's concurrency and retries", () => {
  for (const [synth, concurrency] of [
    [s, 10],
    [few, 3],
  ] as const) {
    const definition = definitionOf(synth.json);
    const { isValid, errorsText } = aslValidator(definition, { checkArn: true, checkPaths: true });
    expect([isValid, errorsText()]).toEqual([true, '']);
    for (const map of ['CheckParts', 'WriteParts']) {
      const state = definition.States[map];
      expect(state.MaxConcurrency).toBe(concurrency);
      expect(state.ItemProcessor.ProcessorConfig.Mode).toBe('DISTRIBUTED');
      expect(state.ItemReader.Resource).toBe('arn:aws:states:::s3:getObject');
      expect(state.Catch[0]).toMatchObject({ ErrorEquals: ['States.ALL'], Next: 'ReportFailure' });
      const inner = Object.values(state.ItemProcessor.States)[0] as Json;
      expect(inner.Retry.map((r: Json) => r.ErrorEquals).flat()).toEqual(
        expect.arrayContaining(['Lambda.TooManyRequestsException', 'States.TaskFailed']),
      );
    }
    expect(definition.States.Alert.Resource).toBe('arn:aws:states:::sns:publish');
  }
});

test('Report has a Catch: when it fails, ReportFallback runs its function again to report the failure', () => {
  const { States } = definitionOf(s.json);
  expect(States.Report.Catch).toEqual([
    { ErrorEquals: ['States.ALL'], ResultPath: '$.reportError', Next: 'ReportFallback' },
  ]);
  const fallback = States.ReportFallback;
  expect(fallback).toMatchObject({
    Type: 'Task',
    Resource: States.Report.Resource,
    TimeoutSeconds: States.Report.TimeoutSeconds,
    ResultPath: '$.report',
    Next: 'Notify',
  });
  // Failed, with Report's error by its name: never its cause, which might quote the file.
  expect(fallback.Parameters).toMatchObject({
    outcome: 'failed',
    'reportFailed.$': '$.reportError.Error',
  });
  expect(JSON.stringify(fallback.Parameters)).not.toContain('Cause');
});

test('only the WritePart function may write records; no import function may touch access state', () => {
  const writers: string[] = [];
  for (const [roleId] of resourcesOf(s.json, 'AWS::IAM::Role')) {
    const writes = statementsOf(s.json, roleId).filter(
      (st) =>
        st.Effect === 'Allow' &&
        list<string>(st.Action).some((a) =>
          /^dynamodb:(PutItem|BatchWriteItem|DeleteItem|UpdateItem|\*)$/.test(a),
        ),
    );
    for (const st of writes) {
      const keys = st.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'] as string[];
      if (keys.some((k) => k.startsWith('TXN#') || k.startsWith('CUS#'))) writers.push(roleId);
      else expect(keys).toEqual(['USER#*']); // the API's functions: access state only
      expect(st.Condition.Null).toEqual({ 'dynamodb:LeadingKeys': 'false' });
    }
  }
  const writePart = s.stack.importDrop.functions.get('WritePart')!;
  expect(writers).toEqual([s.logicalId(writePart.role!)]);
});

test('only CheckPart may list the files bucket, under the file prefixes; no import function may read a file', () => {
  const files = JSON.stringify({ 'Fn::GetAtt': [s.logicalId(s.stack.data.bucket), 'Arn'] });
  const listers = resourcesOf(s.json, 'AWS::IAM::Role')
    .filter(([roleId]) =>
      statementsOf(s.json, roleId).some(
        (st) => list(st.Action).includes('s3:ListBucket') && JSON.stringify(st.Resource) === files,
      ),
    )
    .map(([roleId]) => roleId);
  const checkPart = s.stack.importDrop.functions.get('CheckPart')!;
  expect(listers).toEqual([s.logicalId(checkPart.role!)]);
  // Whatever an import function may do to the files bucket: CheckPart's listing, nothing else.
  const onFiles = [...s.stack.importDrop.functions.values()].flatMap((step) =>
    statementsOf(s.json, s.logicalId(step.role!)).filter((st) =>
      JSON.stringify(st.Resource).includes(files),
    ),
  );
  expect(onFiles).toEqual([
    {
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: JSON.parse(files),
      Condition: { StringLike: { 's3:prefix': FILE_PREFIXES.map((p) => `${p}*`) } },
    },
  ]);
  expect(
    s.json.Resources[s.logicalId(checkPart)]!.Properties!.Environment.Variables.FILES_BUCKET,
  ).toEqual({ Ref: s.logicalId(s.stack.data.bucket) });
  // -c importFileCheck=false (a backfill): no lookup, no listing right.
  const off = few.stack.importDrop.functions.get('CheckPart')!;
  expect(
    few.json.Resources[few.logicalId(off)]!.Properties!.Environment.Variables.FILES_BUCKET,
  ).toBeUndefined();
  expect(
    JSON.stringify(statementsOf(few.json, few.logicalId(off.role!))).includes(
      JSON.stringify({ 'Fn::GetAtt': [few.logicalId(few.stack.data.bucket), 'Arn'] }),
    ),
  ).toBe(false);
});

test('failed, timed-out and aborted imports alarm on the stage topic; the dashboard counts records written', () => {
  const alarms = resourcesOf(s.json, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);
  const machineRef = { Ref: s.logicalId(s.stack.importDrop.stateMachine) };
  for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted']) {
    const alarm = alarms.find((a) => {
      const watched = a.Metrics?.[0]?.MetricStat?.Metric;
      return (
        watched?.MetricName === metric &&
        JSON.stringify(watched.Dimensions) ===
          JSON.stringify([{ Name: 'StateMachineArn', Value: machineRef }])
      );
    });
    expect(alarm).toBeDefined();
    expect(alarm!.AlarmActions).toEqual([{ Ref: s.logicalId(s.stack.monitoring.topic) }]);
    expect(alarm!.AlarmDescription).toMatch(/reports\//);
  }
  const filters = resourcesUnder(s.json, 'AWS::Logs::MetricFilter', 'Import');
  expect(filters.map(([, f]) => f.Properties!.MetricTransformations[0].MetricValue)).toEqual([
    '$.counts.records',
  ]);
});

test('saved queries answer who changed a record, from which import, and who uploaded it', () => {
  const queries = resourcesOf(s.json, 'AWS::Logs::QueryDefinition').map(([, q]) => q.Properties!);
  const named = (suffix: string) =>
    queries.find((q) => q.Name === `${s.stack.stackName}/audit/${suffix}`)!;
  const importGroups = [...s.stack.importDrop.functions.values()].map((fn) => ({
    Ref: s.logicalId(fn.logGroup),
  }));
  for (const [suffix, text] of Object.entries(IMPORT_QUERIES)) {
    expect(named(suffix).QueryString).toBe(text);
    expect(named(suffix).LogGroupNames).toEqual(importGroups);
  }
  expect(named('changes-by-customer').QueryString).toContain('kind = "record"');
});

test("who put a file is in the import bucket's server access logs: no CloudTrail trail of its own", () => {
  // An account holds 5 trails per region: a stage must deploy beside an organisation's own.
  expect(resourcesOf(s.json, 'AWS::CloudTrail::Trail')).toEqual([]);
  const bucket = s.json.Resources[s.logicalId(s.stack.importDrop.bucket)]!;
  expect(bucket.Properties!.LoggingConfiguration).toEqual({
    DestinationBucketName: { Ref: s.logicalId(s.stack.data.accessLogsBucket) },
    LogFilePrefix: 'import-bucket/',
  });
});

test('the workflow logs under /aws/vendedlogs/ and names no partition of its own', () => {
  const machine = s.json.Resources[s.logicalId(s.stack.importDrop.stateMachine)]!;
  const groupArn = machine.Properties!.LoggingConfiguration.Destinations[0].CloudWatchLogsLogGroup
    .LogGroupArn as { 'Fn::GetAtt': [string, string] };
  const group = s.json.Resources[groupArn['Fn::GetAtt'][0]]!;
  // The rest of the name: test/infra/checks/deploy-rules.ts, "log delivery".
  expect(JSON.stringify(group.Properties!.LogGroupName)).toContain(
    `/aws/vendedlogs/states/${s.stack.stackName}-WorkflowLogs-`,
  );
  const definition = JSON.stringify(machine.Properties!.DefinitionString);
  expect(definition).toContain('states:::s3:getObject');
  expect(definition).not.toMatch(/arn:aws:/);
});

test('docs/operations/loading-records.md gives the operator exactly what `npm run import -- --stage` calls', () => {
  const docs = readFileSync(join(PROJECT_ROOT, 'docs', 'operations', 'loading-records.md'), 'utf8');
  const block = /\*\*The operator's policy\*\*[\s\S]*?```json\n([\s\S]*?)```/.exec(docs)![1]!;
  const statements = (JSON.parse(block) as { Statement: Json[] }).Statement;
  const granted = statements.flatMap((st) =>
    list<string>(st.Action).flatMap((action) =>
      list<string>(st.Resource).map(
        (r) => `${action} ${r.replace(/^.*:::IMPORT_BUCKET_NAME/, '')}`,
      ),
    ),
  );
  // commands/import/stage-drop.ts: DescribeStacks for the drop; the upload into incoming/ (in parts, and
  // aborted when a part fails); GetObject of the report and the work files, ListObjectsV2 of
  // work/ for the progress line; commands/import/stage-execution.ts: the upload's execution found and
  // followed; the bucket's key, as S3 uses it for the upload and the reads.
  expect(granted.sort()).toEqual(
    [
      'cloudformation:DescribeStacks arn:aws:cloudformation:REGION:ACCOUNT:stack/STACK_NAME/*',
      `s3:PutObject /${PREFIX.incoming}*`,
      `s3:AbortMultipartUpload /${PREFIX.incoming}*`,
      `s3:GetObject /${PREFIX.reports}*`,
      `s3:GetObject /${PREFIX.work}*`,
      's3:ListBucket ',
      'kms:GenerateDataKey IMPORT_KEY_ARN',
      'kms:Decrypt IMPORT_KEY_ARN',
      'states:ListExecutions arn:aws:states:REGION:ACCOUNT:stateMachine:STATE_MACHINE_NAME',
      'states:DescribeExecution arn:aws:states:REGION:ACCOUNT:execution:STATE_MACHINE_NAME:*',
    ].sort(),
  );
  expect(statements.find((st) => st.Action === 's3:ListBucket').Condition).toEqual({
    StringLike: { 's3:prefix': `${PREFIX.work}*` },
  });
  // The key only through S3, for the import bucket (as the workflow's roles, above).
  expect(statements.find((st) => st.Resource === 'IMPORT_KEY_ARN').Condition).toEqual({
    StringEquals: {
      'kms:ViaService': 's3.REGION.amazonaws.com',
      'kms:EncryptionContext:aws:s3:arn': 'arn:aws:s3:::IMPORT_BUCKET_NAME',
    },
  });

  // Every call the command makes, named by its Command class, and the action IAM checks for it.
  const source = (...path: string[]) => readFileSync(join(PROJECT_ROOT, ...path), 'utf8');
  const commandsIn = (text: string) =>
    [...new Set([...text.matchAll(/new (\w+)Command\(/g)].map((m) => m[1]!))].sort();
  const own = commandsIn(
    source('commands', 'import', 'stage-drop.ts') +
      source('commands', 'import', 'stage-execution.ts') +
      source('stage', 'outputs.ts'),
  );
  expect(own).toEqual(['DescribeExecution', 'DescribeStacks', 'ListExecutions']);
  // The report and the work files: readJson (import/steps/work-folder.ts), one GetObject each;
  // the work folder's listings: keysUnder (the same file), whose own calls are read from it.
  expect(source('commands', 'import', 'stage-drop.ts')).toMatch(/\breadJson\b/);
  expect(source('commands', 'import', 'stage-drop.ts')).toMatch(/\bkeysUnder\(/);
  const listing = commandsIn(keysUnder.toString());
  expect(listing).toEqual(['ListObjectsV2']);
  // The upload: lib-storage's Upload in commands/import/drop.ts, which sends nothing else itself. Upload
  // sends PutObjectTagging only when given tags, and none are.
  const drop = source('commands', 'import', 'drop.ts');
  expect(commandsIn(drop)).toEqual([]);
  expect(drop).toContain('new Upload(');
  expect(drop).not.toMatch(/\btags\b/);
  const libStorage = join('node_modules', '@aws-sdk', 'lib-storage');
  const { main } = JSON.parse(source(libStorage, 'package.json')) as { main: string };
  const upload = commandsIn(source(libStorage, main)).filter((c) => c !== 'PutObjectTagging');
  expect(upload).toEqual([
    'AbortMultipartUpload',
    'CompleteMultipartUpload',
    'CreateMultipartUpload',
    'PutObject',
    'UploadPart',
  ]);
  // With SSE-KMS S3 asks the caller's kms:GenerateDataKey to store an object (or start a
  // multipart upload), and kms:Decrypt to read one and to add a part to a multipart upload.
  const action: Record<string, string[]> = {
    DescribeStacks: ['cloudformation:DescribeStacks'],
    GetObject: ['s3:GetObject', 'kms:Decrypt'],
    ListObjectsV2: ['s3:ListBucket'],
    PutObject: ['s3:PutObject', 'kms:GenerateDataKey'],
    CreateMultipartUpload: ['s3:PutObject', 'kms:GenerateDataKey'],
    UploadPart: ['s3:PutObject', 'kms:Decrypt'],
    CompleteMultipartUpload: ['s3:PutObject'],
    AbortMultipartUpload: ['s3:AbortMultipartUpload'],
    ListExecutions: ['states:ListExecutions'],
    DescribeExecution: ['states:DescribeExecution'],
  };
  const needed = new Set(
    [...own, 'GetObject', ...listing, ...upload].flatMap((c) => action[c] ?? [`${c}?`]),
  );
  expect([...needed].sort()).toEqual(
    [...new Set(statements.flatMap((st) => list<string>(st.Action)))].sort(),
  );
});

test("every Task that runs a function has TimeoutSeconds equal to that function's timeout", () => {
  const definition = definitionOf(s.json);
  const tasks: [string, Json][] = [];
  const visit = (states: Record<string, Json>) => {
    for (const [name, state] of Object.entries(states)) {
      if (state.Type === 'Map') visit(state.ItemProcessor.States);
      if (state.Type === 'Task' && /:function:/.test(state.Resource)) tasks.push([name, state]);
    }
  };
  visit(definition.States);
  expect(tasks.map(([name]) => name).sort()).toEqual(
    ['CheckPart', 'Plan', 'Report', 'ReportFallback', 'Verify', 'WritePart'].sort(),
  );
  const functions = resourcesOf(s.json, 'AWS::Lambda::Function');
  for (const [name, state] of tasks) {
    // The fallback runs Report again, telling it Report failed.
    const step = name === 'ReportFallback' ? 'Report' : name;
    const id = s.logicalId(s.stack.importDrop.functions.get(step as never)!);
    const fn = functions.find(([logicalId]) => logicalId === id)![1];
    expect(state.Resource).toContain(id);
    expect(state.TimeoutSeconds).toBe(fn.Properties!.Timeout);
  }
});
