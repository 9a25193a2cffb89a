import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
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
 * The same for a store with deletion protection on (the table, the user pool): CloudFormation
 * could not delete it on a rolled-back create (the service refuses), and the rollback would
 * fail. Kept then too, under its generated name, so the retry makes a new one beside it.
 */
export function protectedRemovalPolicyFor(disposable: boolean): RemovalPolicy {
  return disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
}
