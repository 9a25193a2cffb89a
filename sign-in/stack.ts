/**
 * A deployed stack's user pool app client, from its CloudFormation outputs (UserPoolId,
 * UserPoolClientId: lib/stack.ts), for commands that sign a stage's user in: the region is the
 * user pool's own (its id begins with it), whatever region the credentials default to.
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { OUTPUTS, stackOutputs } from '../stage/outputs.ts';

export interface StackUserPool {
  userPoolId: string;
  clientId: string;
  region: string;
}

export async function stackUserPool(
  cfn: CloudFormationClient,
  stackName: string,
): Promise<StackUserPool> {
  const output = await stackOutputs(cfn, stackName);
  const userPoolId = output(OUTPUTS.userPoolId);
  const region = /^([a-z0-9-]+)_/.exec(userPoolId)?.[1];
  if (!region) throw new Error(`stack ${stackName}: ${userPoolId} is not a user pool id`);
  return { userPoolId, clientId: output(OUTPUTS.userPoolClientId), region };
}
