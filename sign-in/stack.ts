/**
 * A deployed stack's user pool app client, from its CloudFormation outputs (UserPoolId,
 * UserPoolClientId: lib/stack.ts), for commands that sign a stage's user in: the region is the
 * user pool's own (its id begins with it), whatever region the credentials default to.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';

export interface StackUserPool {
  userPoolId: string;
  clientId: string;
  region: string;
}

export async function stackUserPool(
  cfn: CloudFormationClient,
  stackName: string,
): Promise<StackUserPool> {
  const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
  const output = (key: string) => {
    const value = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === key)?.OutputValue;
    if (!value) throw new Error(`stack ${stackName} has no output ${key}: deploy it first`);
    return value;
  };
  const userPoolId = output('UserPoolId');
  const region = /^([a-z0-9-]+)_/.exec(userPoolId)?.[1];
  if (!region) throw new Error(`stack ${stackName}: ${userPoolId} is not a user pool id`);
  return { userPoolId, clientId: output('UserPoolClientId'), region };
}
