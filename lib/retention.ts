import { CfnResource, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { type CfnLogGroup, type ILogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AUDIT_RETENTION_DAYS } from '../core/retention.ts';

/** The log groups' retention: the audit trail's (core/retention.ts), as CloudWatch Logs names it. */
export const AUDIT_RETENTION = RetentionDays.FIVE_YEARS;
if ((AUDIT_RETENTION as number) !== AUDIT_RETENTION_DAYS)
  throw new Error('RetentionDays.FIVE_YEARS is not AUDIT_RETENTION_DAYS');

/**
 * What CloudFormation does with a stage's data, keys and logs. Kept on `cdk destroy` and on a
 * replacement, unless the stage is disposable; removed when the create that made them rolls back
 * (RetainExceptOnCreate), since they are empty then and a kept one with a fixed name would block
 * the retry.
 */
export function removalPolicyFor(disposable: boolean): RemovalPolicy {
  return disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
}

/**
 * The same for what a rolled-back create could not delete, and the rollback would fail on: a
 * store with deletion protection on (the table, the user pool: the service refuses), and a bucket
 * log delivery writes to (S3's server access logs, CloudFront's: the delivery may land at any
 * time after the create began, and S3 deletes no bucket that holds an object, a version or a
 * delete marker). Kept then too, under its generated name, so the retry makes a new one beside it.
 */
export function keptRemovalPolicyFor(disposable: boolean): RemovalPolicy {
  return disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
}

/**
 * The audit trail's log groups of a kept stage (SPEC 8: the functions' audit events, the API's
 * access log, the import workflow's): deletion-protected, so that deleting one takes a deliberate
 * step first (docs/decisions/0032), and therefore kept even when the create that made them rolls
 * back, since the service would refuse CloudFormation's delete. Their names are generated or
 * carry the stack's id, so the retry makes new ones.
 */
export function protectAuditTrail(groups: readonly ILogGroup[], disposable: boolean): void {
  if (disposable) return;
  for (const group of groups) {
    const resource = group.node.defaultChild as CfnLogGroup;
    resource.deletionProtectionEnabled = true;
    resource.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}

/**
 * Each bucket policy is kept or removed as its bucket is: a kept bucket keeps its TLS-only deny
 * and the grants its log delivery needs after `cdk destroy` (CDK gives a bucket's policy no
 * removal policy of its own).
 */
export function keepPoliciesWithBuckets(stack: Stack): void {
  for (const bucket of stack.node.findAll())
    if (bucket instanceof Bucket && bucket.policy) {
      const from = (bucket.node.defaultChild as CfnResource).cfnOptions;
      const to = (bucket.policy.node.defaultChild as CfnResource).cfnOptions;
      to.deletionPolicy = from.deletionPolicy;
      to.updateReplacePolicy = from.updateReplacePolicy;
    }
}
