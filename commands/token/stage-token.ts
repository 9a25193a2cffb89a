/**
 * `npm run --silent token -- --stage <name> <username>` (or `--stack <name>`): a deployed
 * stage's user, whose user pool client is found from the stack's outputs (AWS credentials that
 * may DescribeStacks); the password from TOKEN_PASSWORD or asked, the code from --otp or asked.
 */
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { signInWithTotp } from '../../sign-in/flow.ts';
import type { TokenArgs } from './args.ts';
import { codeOf, passwordOf } from './credentials.ts';
import { CommandFailure } from '../command-failure.ts';
import { StackUnreadable } from './stack-unreadable.ts';
import { signInRefusal } from './sign-in-refusal.ts';

export async function stageToken(args: TokenArgs): Promise<string> {
  // Loaded only for a stage: the local path stays quick to start.
  const [{ CloudFormationClient }, { stackUserPool }] = await Promise.all([
    import('@aws-sdk/client-cloudformation'),
    import('../../sign-in/stack.ts'),
  ]);
  let stackName = args.stack;
  if (args.stage !== undefined) {
    const { makeStage } = await import('../../stage/stage.ts');
    try {
      stackName = makeStage({ name: args.stage }).stackName;
    } catch (error) {
      throw new CommandFailure((error as Error).message);
    }
  }
  if (stackName === undefined) throw new CommandFailure('give --stage or --stack', 2);
  const cfn = new CloudFormationClient({});
  let pool;
  try {
    pool = await stackUserPool(cfn, stackName);
  } catch (error) {
    throw new StackUnreadable(stackName, error);
  } finally {
    cfn.destroy();
  }
  const password = await passwordOf(args.username);
  // Sign-in calls are unsigned: the password and the code are the credentials.
  const client = new CognitoIdentityProviderClient({ region: pool.region });
  try {
    const tokens = await signInWithTotp({
      client,
      clientId: pool.clientId,
      username: args.username,
      password,
      code: codeOf(args.otp),
    });
    return tokens.accessToken;
  } catch (error) {
    throw signInRefusal(error, { username: args.username, kind: 'stage' });
  } finally {
    client.destroy();
  }
}
