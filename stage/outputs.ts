/**
 * The stack's outputs by name: the stack writes each (lib/stack.ts), the commands and the
 * sign-in read them from CloudFormation (stackOutputs), the docs name them.
 */
import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';

export const OUTPUTS = {
  staffAppUrl: 'StaffAppUrl',
  apiUrl: 'ApiUrl',
  userPoolId: 'UserPoolId',
  userPoolClientId: 'UserPoolClientId',
  tableName: 'TableName',
  bucketName: 'BucketName',
  filesKeyArn: 'FilesKeyArn',
  importBucket: 'ImportBucketName',
  importKeyArn: 'ImportKeyArn',
  importStateMachine: 'ImportStateMachineArn',
  deployedSettings: 'DeployedSettings',
  alarmTopicArn: 'AlarmTopicArn',
} as const;

export type OutputName = (typeof OUTPUTS)[keyof typeof OUTPUTS];

/** A deployed stack's outputs: each asked for is there, or the error says to deploy first. */
export async function stackOutputs(
  cfn: CloudFormationClient,
  stackName: string,
): Promise<(name: OutputName) => string> {
  const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
  return (name) => {
    const value = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === name)?.OutputValue;
    if (!value) throw new Error(`stack ${stackName} has no output ${name}: deploy it first`);
    return value;
  };
}
