import { Aws, Fn, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/**
 * A log group a service writes through CloudWatch Logs' log delivery (the API's access log, the
 * import workflow's). Under /aws/vendedlogs/, which log delivery writes without adding the group
 * to the account's one log-delivery resource policy (5,120 characters, never shrunk: a few dozen
 * stages would fill it). Named for this creation of the stack (its id's last part), so that one
 * kept after `cdk destroy` never blocks the next create of the same stage.
 */
export function vendedLogGroup(
  scope: Construct,
  id: string,
  props: {
    service: 'apigateway' | 'states';
    retention: RetentionDays;
    removalPolicy: RemovalPolicy;
  },
): LogGroup {
  const creation = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return new LogGroup(scope, id, {
    logGroupName: `/aws/vendedlogs/${props.service}/${Stack.of(scope).stackName}-${id}-${creation}`,
    retention: props.retention,
    removalPolicy: props.removalPolicy,
  });
}
