import { Duration } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Key } from 'aws-cdk-lib/aws-kms';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectOwnership,
  type BucketProps,
  type LifecycleRule,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { stageKey } from './keys.ts';
import { keptRemovalPolicyFor, removalPolicyFor } from './retention.ts';
import {
  AUDIT_RETENTION_DAYS,
  FILES_RETENTION,
  INCOMPLETE_UPLOAD_DAYS,
} from '../core/retention.ts';
import { EXPIRES_AT, PARTITION_KEY, SORT_KEY } from '../core/layout.ts';
import { INDEX_LIST } from '../core/lookups.ts';

/**
 * Every bucket of the stack: no public access, SSE-S3 (S3 server access logging can deliver only
 * to such buckets) unless it holds records' files, TLS 1.2 only, objects owned by the bucket owner.
 */
export const PRIVATE_BUCKET = {
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  encryption: BucketEncryption.S3_MANAGED,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
} as const;

/**
 * The lifecycle rule of a versioned bucket that removes earlier versions after `days`, and the
 * expired delete markers left behind them. Together in one rule: CloudFormation's S3 handler
 * refuses a rule holding the delete-marker flag alone (it wants one of the expirations,
 * transitions or AbortIncompleteMultipartUpload), and S3 refuses the flag beside ExpirationInDays,
 * ExpirationDate or a tag filter; a noncurrent-version expiration is the one both accept
 * (test/infra/checks/deploy-rules.ts names the sources).
 */
export function earlierVersionsRule(days: number): LifecycleRule {
  return {
    id: 'expire-earlier-versions',
    noncurrentVersionExpiration: Duration.days(days),
    expiredObjectDeleteMarker: true,
  };
}

/**
 * A bucket of access logs: who fetched which file or page is part of the audit trail, and kept
 * as long (lib/retention.ts). Versioned, so that a log deleted by hand stays for a day; what
 * expires or is deleted leaves only a delete marker, removed in turn.
 */
export function logBucket(disposable: boolean): BucketProps {
  return {
    ...PRIVATE_BUCKET,
    versioned: true,
    removalPolicy: keptRemovalPolicyFor(disposable),
    autoDeleteObjects: disposable,
    lifecycleRules: [
      {
        id: 'expire-with-the-audit-trail',
        expiration: Duration.days(AUDIT_RETENTION_DAYS),
        abortIncompleteMultipartUploadAfter: Duration.days(INCOMPLETE_UPLOAD_DAYS),
      },
      earlierVersionsRule(1),
    ],
  };
}

export interface DataProps {
  /**
   * A test stage's data (stage/stage.ts): destroyed with the stack, buckets emptied first.
   * @default false: the table and buckets outlive the stack
   */
  readonly disposable?: boolean;
  /**
   * The table's warm write throughput (stage/settings.ts `tableWarmWritesPerSecond`), and each
   * index's: a write of a record writes its indexes too, and an index that cannot keep up
   * throttles the table's writes.
   */
  readonly warmWritesPerSecond?: number;
}

/**
 * The business records: one DynamoDB table (single-table design, see core/layout.ts)
 * and one private bucket of files. Both outlive the stack (RETAIN) and guard against mistakes
 * (deletion protection, PITR, versioning) because they hold the only copy of customer records,
 * except in a disposable stage, which `cdk destroy` removes whole.
 */
export class Data extends Construct {
  readonly table: Table;
  readonly bucket: Bucket;
  /**
   * The files bucket's key (ID photos and signatures): one the business controls and can audit
   * in CloudTrail, used only through S3 (lib/project-function.ts grantFileRead).
   */
  readonly filesKey: Key;
  /**
   * Destination of the file bucket's S3 server access logs (who fetched which ID photo, and
   * when). It is not logged itself: that would be a loop, and cdk-nag exempts log targets.
   */
  readonly accessLogsBucket: Bucket;

  constructor(scope: Construct, id: string, props: DataProps = {}) {
    super(scope, id);
    const disposable = props.disposable ?? false;
    const removalPolicy = removalPolicyFor(disposable);
    const autoDeleteObjects = disposable;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      // Back-office reads are few and bursty: on-demand has no capacity to plan or to pay for
      // while idle.
      billingMode: BillingMode.PAY_PER_REQUEST,
      // Deletions' tombstones expire once no earlier import may write (core/layout.ts).
      timeToLiveAttribute: EXPIRES_AT,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: !disposable,
      removalPolicy: keptRemovalPolicyFor(disposable),
      // The AWS-managed key (aws/dynamodb) logs key use in CloudTrail and needs no KMS grants
      // for the functions' roles.
      encryption: TableEncryption.AWS_MANAGED,
      // A backfill's pace from its first minute, rather than on-demand's doubling every ~30 min.
      ...(props.warmWritesPerSecond === undefined
        ? {}
        : { warmThroughput: { writeUnitsPerSecond: props.warmWritesPerSecond } }),
    });

    // The lookups of SPEC 10 (core/lookups.ts): each index holds what its summaries show, so a
    // page is one Query; the record's one write sets its keys.
    for (const index of INDEX_LIST) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.INCLUDE,
        nonKeyAttributes: [...index.projected],
        ...(props.warmWritesPerSecond === undefined
          ? {}
          : { warmThroughput: { writeUnitsPerSecond: props.warmWritesPerSecond } }),
      });
    }

    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', logBucket(disposable));
    this.filesKey = stageKey(this, 'FilesKey', {
      description: 'The files bucket: ID photos, signatures, attachments',
      disposable,
    });
    this.bucket = new Bucket(this, 'FilesBucket', {
      ...PRIVATE_BUCKET,
      encryption: BucketEncryption.KMS,
      encryptionKey: this.filesKey,
      // One data key per bucket rather than per object: KMS requests (and their cost) fall by
      // S3's bucket key, and the encryption context is the bucket's ARN.
      bucketKeyEnabled: true,
      versioned: true,
      removalPolicy,
      autoDeleteObjects,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'files-bucket/',
      // Current files stay while records name them; what was replaced or deleted stays as long
      // as the table's point-in-time recovery reaches back, then goes (lib/retention.ts).
      lifecycleRules: [
        {
          ...earlierVersionsRule(FILES_RETENTION.noncurrentDays),
          abortIncompleteMultipartUploadAfter: Duration.days(INCOMPLETE_UPLOAD_DAYS),
        },
      ],
    });
  }
}
