import { Duration } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { removalPolicyFor } from './retention.ts';

/**
 * A customer managed key of the stage: rotated every year, kept as the stage's data is (a kept
 * bucket is unreadable without its key), and creating grants only for AWS resources (Control
 * Tower's CT.KMS.PR.3): no principal of the account can hand the key's use to something else.
 */
export function stageKey(
  scope: Construct,
  id: string,
  props: { description: string; disposable: boolean },
): Key {
  const key = new Key(scope, id, {
    description: props.description,
    enableKeyRotation: true,
    removalPolicy: removalPolicyFor(props.disposable),
    ...(props.disposable ? { pendingWindow: Duration.days(7) } : {}),
  });
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'GrantsOnlyForAwsResources',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['kms:CreateGrant'],
      resources: ['*'],
      conditions: {
        BoolIfExists: {
          'kms:GrantIsForAWSResource': 'false',
          'aws:PrincipalIsAWSService': 'false',
        },
      },
    }),
  );
  return key;
}
