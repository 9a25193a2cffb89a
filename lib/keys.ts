import { Duration, Stack } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
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

/** What S3 asks of a bucket key for its caller: to write an object, and to read one. */
export type S3KeyAction = 'kms:GenerateDataKey' | 'kms:Decrypt';

/**
 * Lets `grantee` use `bucket`'s key only as S3 does on its behalf, for that bucket: a stolen role
 * can neither call KMS itself nor decrypt another bucket's objects under the same key. With S3
 * Bucket Keys the encryption context S3 sends is the bucket's ARN, not the object's. Nothing
 * when the bucket has no key of the stack (SSE-S3).
 */
export function grantKeyThroughS3(
  grantee: IGrantable,
  bucket: IBucket,
  actions: readonly S3KeyAction[],
): void {
  if (!bucket.encryptionKey || actions.length === 0) return;
  const stack = Stack.of(bucket);
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...new Set(actions)].sort(),
      resources: [bucket.encryptionKey.keyArn],
      conditions: {
        StringEquals: {
          'kms:ViaService': `s3.${stack.region}.${stack.urlSuffix}`,
          'kms:EncryptionContext:aws:s3:arn': bucket.bucketArn,
        },
      },
    }),
  );
}
