/** The table and the buckets: the only copy of the business's records and files. */
import { EXPIRES_AT, PARTITION_KEY, SORT_KEY } from '../../../core/layout.ts';
import {
  AUDIT_RETENTION_DAYS,
  FILES_RETENTION,
  INCOMPLETE_UPLOAD_DAYS,
} from '../../../core/retention.ts';
import {
  onlyResource,
  resourcesOf,
  resourcesUnder,
  synthesize,
  type Json,
  type Synthesized,
} from '../synth.ts';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

test('one table: pk/sk strings, on demand, PITR, deletion protection, encrypted, retained', () => {
  const [id, table] = onlyResource(s.json, 'AWS::DynamoDB::Table');
  expect(id).toBe(s.logicalId(s.stack.data.table));
  expect(table.Properties).toMatchObject({
    KeySchema: [
      { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
      { AttributeName: SORT_KEY, KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
    // Deletions' tombstones expire once no earlier import may write (core/import-version.ts).
    TimeToLiveSpecification: { AttributeName: EXPIRES_AT, Enabled: true },
    PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    DeletionProtectionEnabled: true,
    // SSEEnabled without a key: the AWS-managed KMS key aws/dynamodb.
    SSESpecification: { SSEEnabled: true },
  });
  expect(table.Properties!.SSESpecification.KMSMasterKeyId).toBeUndefined();
  expect([undefined, 'KMS']).toContain(table.Properties!.SSESpecification.SSEType);
  expect([PARTITION_KEY, SORT_KEY]).toEqual(['pk', 'sk']);
  expect(table.DeletionPolicy).toBe('Retain');
  expect(table.UpdateReplacePolicy).toBe('Retain');
});

/**
 * SPEC 10's indexes, written out here rather than read from core/lookups.ts, so that a change to
 * a key, an index or what it holds fails until this says so too.
 */
const TRANSACTION_SUMMARY = [
  'id',
  'receipt_no',
  'created_at',
  'branch',
  'customer',
  'type',
  'total_amount',
];
const CUSTOMER_SUMMARY = [
  'id',
  'first_name',
  'middle_name',
  'last_name',
  'date_of_birth',
  'assessment_risk',
  'last_transaction_datetime',
];
const INDEXES: [name: string, partition: string, sort: string, projected: string[]][] = [
  ['receipt', 'receiptKey', 'timeKey', TRANSACTION_SUMMARY],
  ['customer-transactions', 'customerKey', 'timeKey', TRANSACTION_SUMMARY],
  ['tin', 'tinKey', 'nameKey', [...CUSTOMER_SUMMARY, 'tinWhole']],
  ['sss', 'sssKey', 'nameKey', CUSTOMER_SUMMARY],
  ['id-no', 'idNoKey', 'nameKey', CUSTOMER_SUMMARY],
  ['last-name', 'lastNameKey', 'nameKey', CUSTOMER_SUMMARY],
];

test('the lookups read indexes that hold each summary: keys strings, only what a summary shows', () => {
  const [, table] = onlyResource(s.json, 'AWS::DynamoDB::Table');
  const indexes = table.Properties!.GlobalSecondaryIndexes as Json[];
  expect(indexes.map((index) => index.IndexName).sort()).toEqual(
    INDEXES.map(([name]) => name).sort(),
  );
  for (const [name, partition, sort, projected] of INDEXES) {
    const index = indexes.find((i) => i.IndexName === name)!;
    expect(index.KeySchema).toEqual([
      { AttributeName: partition, KeyType: 'HASH' },
      { AttributeName: sort, KeyType: 'RANGE' },
    ]);
    // No tin, sss, id_no, e-mail or file key beyond what the lookup matches on.
    expect(index.Projection.ProjectionType).toBe('INCLUDE');
    expect([...index.Projection.NonKeyAttributes].sort()).toEqual([...projected].sort());
  }
  const defined = Object.fromEntries(
    (table.Properties!.AttributeDefinitions as Json[]).map((d) => [
      d.AttributeName,
      d.AttributeType,
    ]),
  );
  const keys = [PARTITION_KEY, SORT_KEY, ...INDEXES.flatMap(([, p, k]) => [p, k])];
  expect(defined).toEqual(Object.fromEntries(keys.map((key) => [key, 'S'])));
});

/** The bucket policy statements of a bucket. */
function policyOf(bucketId: string): Json[] {
  const policies = resourcesOf(s.json, 'AWS::S3::BucketPolicy').filter(
    ([, p]) => JSON.stringify(p.Properties!.Bucket) === JSON.stringify({ Ref: bucketId }),
  );
  expect(policies).toHaveLength(1);
  return policies[0]![1].Properties!.PolicyDocument.Statement as Json[];
}

function expectPrivateTlsOnlyEncryptedRetained(
  bucketId: string,
  algorithm = 'AES256',
  onDelete = 'RetainExceptOnCreate',
): void {
  const bucket = s.json.Resources[bucketId]!;
  expect(bucket.Type).toBe('AWS::S3::Bucket');
  expect(bucket.Properties).toMatchObject({
    PublicAccessBlockConfiguration: {
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    },
    BucketEncryption: {
      ServerSideEncryptionConfiguration: [
        { ServerSideEncryptionByDefault: { SSEAlgorithm: algorithm } },
      ],
    },
    OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
  });
  expect(bucket.Properties!.WebsiteConfiguration).toBeUndefined();
  expect(bucket.DeletionPolicy).toBe(onDelete);
  expect(bucket.UpdateReplacePolicy).toBe('Retain');

  const arn = { 'Fn::GetAtt': [bucketId, 'Arn'] };
  const statements = policyOf(bucketId);
  expect(statements).toContainEqual({
    Action: 's3:*',
    Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    Effect: 'Deny',
    Principal: { AWS: '*' },
    Resource: [arn, { 'Fn::Join': ['', [arn, '/*']] }],
  });
  // Nothing in a bucket policy grants access to everyone.
  for (const st of statements.filter((st) => st.Effect === 'Allow')) {
    expect(JSON.stringify(st.Principal)).not.toContain('"*"');
  }
}

test('the files bucket: public access blocked, TLS-only policy, versioned, encrypted with its own kept key, access-logged, retained', () => {
  const id = s.logicalId(s.stack.data.bucket);
  expectPrivateTlsOnlyEncryptedRetained(id, 'aws:kms');
  const keyId = s.logicalId(s.stack.data.filesKey);
  expect(s.json.Resources[id]!.Properties!.BucketEncryption).toEqual({
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
  // The key goes only with the bucket: kept files stay readable after a destroy.
  const key = s.json.Resources[keyId]!;
  expect([key.DeletionPolicy, key.UpdateReplacePolicy, key.Properties!.EnableKeyRotation]).toEqual([
    'RetainExceptOnCreate',
    'Retain',
    true,
  ]);
  expect(s.json.Resources[id]!.Properties).toMatchObject({
    VersioningConfiguration: { Status: 'Enabled' },
    LoggingConfiguration: {
      DestinationBucketName: { Ref: s.logicalId(s.stack.data.accessLogsBucket) },
    },
  });
  expect(policyOf(id).filter((st) => st.Effect === 'Allow')).toEqual([]);
});

/** Every store is bounded: the rules S3 applies, with the figures lib/retention.ts defines. */
test('the files bucket drops earlier versions and delete markers, the log bucket keeps logs as long as the audit trail', () => {
  const rulesOf = (bucket: unknown) =>
    s.json.Resources[s.logicalId(bucket as never)]!.Properties!.LifecycleConfiguration.Rules;
  expect(rulesOf(s.stack.data.bucket)).toEqual([
    {
      Id: 'expire-earlier-versions',
      NoncurrentVersionExpiration: { NoncurrentDays: FILES_RETENTION.noncurrentDays },
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: INCOMPLETE_UPLOAD_DAYS },
      ExpiredObjectDeleteMarker: true,
      Status: 'Enabled',
    },
  ]);
  // A current file is never expired by age: a record still names it.
  expect(JSON.stringify(rulesOf(s.stack.data.bucket))).not.toContain('"ExpirationInDays"');
  expect(rulesOf(s.stack.data.accessLogsBucket)).toEqual([
    {
      Id: 'expire-with-the-audit-trail',
      ExpirationInDays: AUDIT_RETENTION_DAYS,
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: INCOMPLETE_UPLOAD_DAYS },
      Status: 'Enabled',
    },
    // Versioned: a log deleted by hand stays a day, and no delete marker stays behind.
    {
      Id: 'expire-earlier-versions',
      NoncurrentVersionExpiration: { NoncurrentDays: 1 },
      ExpiredObjectDeleteMarker: true,
      Status: 'Enabled',
    },
  ]);
  // The audit trail's five years (SPEC 8), and a point-in-time restore's reach (35 days).
  expect([AUDIT_RETENTION_DAYS, FILES_RETENTION.noncurrentDays]).toEqual([1827, 35]);
});

test('the access log bucket: public access blocked, TLS-only, encrypted, retained, written only by S3 logging', () => {
  const id = s.logicalId(s.stack.data.accessLogsBucket);
  // Kept by a rolled-back create too: S3's log delivery may write to it at any time.
  expectPrivateTlsOnlyEncryptedRetained(id, 'AES256', 'Retain');
  const allows = policyOf(id).filter((st) => st.Effect === 'Allow');
  // The files bucket's, the staff page's, its CloudFront logs' and the import drop's.
  const staffLogs = s.stack.staffApp.node.findChild('LogsBucket');
  const sources = [
    s.stack.data.bucket,
    s.stack.staffApp.bucket,
    staffLogs,
    s.stack.importDrop.bucket,
  ].map((bucket) => ({
    'Fn::GetAtt': [s.logicalId(bucket), 'Arn'],
  }));
  expect(allows).toHaveLength(sources.length);
  for (const [k, allow] of allows.entries())
    expect(allow).toMatchObject({
      Action: 's3:PutObject',
      Principal: { Service: 'logging.s3.amazonaws.com' },
      Condition: { ArnLike: { 'aws:SourceArn': sources[k] } },
    });
  expect(resourcesUnder(s.json, 'AWS::S3::Bucket', 'Data')).toHaveLength(2);
  // + the import drop's (checks/import-drop.ts) and the staff page's two (checks/staff-app.ts)
  expect(resourcesOf(s.json, 'AWS::S3::Bucket')).toHaveLength(5);
});
