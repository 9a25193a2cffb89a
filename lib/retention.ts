import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AUDIT_RETENTION_DAYS } from '../core/retention';

/** The log groups' retention: the audit trail's (core/retention.ts), as CloudWatch Logs names it. */
export const AUDIT_RETENTION = RetentionDays.FIVE_YEARS;
if ((AUDIT_RETENTION as number) !== AUDIT_RETENTION_DAYS)
  throw new Error('RetentionDays.FIVE_YEARS is not AUDIT_RETENTION_DAYS');

/** What `cdk destroy` does with a stage's data, keys and logs: kept, unless the stage is disposable. */
export function removalPolicyFor(disposable: boolean): RemovalPolicy {
  return disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
}
