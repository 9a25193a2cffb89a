import { CfnResource, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';

/**
 * Gives every function of the stack that names no log group one of its own: CDK's handlers (the
 * bucket notifications', the bucket emptier's) come without, and Lambda would then make
 * /aws/lambda/<name> at their first run, outside the stack and kept forever, on every create
 * attempt. Run once the stack is built, so it sees the handlers CDK added.
 */
export function ownLogGroups(
  stack: Stack,
  props: { retention: RetentionDays; removalPolicy: RemovalPolicy },
): void {
  for (const fn of stack.node.findAll()) {
    if (!(fn instanceof CfnResource) || fn.cfnResourceType !== 'AWS::Lambda::Function') continue;
    const config = fn instanceof CfnFunction ? stack.resolve(fn.loggingConfig) : undefined;
    if (config?.logGroup !== undefined) continue;
    const group = new LogGroup(fn.node.scope!, `${fn.node.id}Logs`, props);
    fn.addPropertyOverride('LoggingConfig.LogGroup', group.logGroupName);
  }
}
