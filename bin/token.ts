/**
 * `npm run --silent token -- <username>`: prints only an access token of a local demo user, from
 * the running local stack (`npm start`): it signs in with the demo password and answers the TOTP
 * challenge (MFA is required, SPEC 8) with the code of the secret the local stack keeps for them.
 * `--code <username>` prints only that code (for the staff page's sign-in), nothing else.
 * `--stage <name> <username>` (or `--stack <name>`): a user of a deployed stage, whose user pool
 * client is found from the stack's outputs (AWS credentials that may DescribeStacks); the
 * password from TOKEN_PASSWORD or asked on the terminal, the code from `--otp <6 digits>` or
 * asked. Errors go to stderr in one line, with a non-zero exit status.
 */
import { awsSetupProblem } from './aws-setup.ts';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { isUserDisabledRefusal } from '../commands/access/cognito-actions.ts';
import { DEMO_PASSWORD, DEMO_USERS, cognitoClient } from '../local/cognito/user-pool.ts';
import {
  incompleteState,
  readLocalState,
  runningDataDir,
  type LocalState,
} from '../local/stack/state.ts';
import { signInWithTotp, UnansweredChallenge, type SignInRequest } from '../sign-in/flow.ts';
import { ask, canAsk } from '../sign-in/prompt.ts';
import { totpCode } from '../sign-in/totp.ts';

const known = DEMO_USERS.map((u) => u.username).join(', ');
const USAGE =
  'usage: npm run --silent token -- <username>           (a local demo user: ' +
  `${known})\n` +
  "       npm run --silent token -- --code <username>    (that user's current TOTP code)\n" +
  '       npm run --silent token -- --stage <name> <username> [--otp <code>]   (or --stack <name>;\n' +
  '         the password from TOKEN_PASSWORD or asked, the code from --otp or asked)';

function fail(message: string, status = 1): never {
  process.stderr.write(`token: ${message}\n`);
  process.exit(status);
}

interface Args {
  username: string;
  code: boolean;
  stack?: string;
  stage?: string;
  otp?: string;
}

function parseArgs(argv: readonly string[]): Args {
  const rest = [...argv];
  const take = (flag: string): string | undefined => {
    const at = rest.indexOf(flag);
    if (at === -1) return undefined;
    const value = rest[at + 1];
    if (value === undefined || value === '' || value.startsWith('-'))
      fail(`${flag} needs a value\n${USAGE}`, 2);
    rest.splice(at, 2);
    return value;
  };
  const stage = take('--stage');
  const stack = take('--stack');
  const otp = take('--otp');
  const codeAt = rest.indexOf('--code');
  if (codeAt !== -1) rest.splice(codeAt, 1);
  const [username, ...extra] = rest;
  if (!username || username.startsWith('-') || extra.length > 0) fail(USAGE, 2);
  if (stage !== undefined && stack !== undefined) fail(`give --stage or --stack, not both`, 2);
  const deployed = stage !== undefined || stack !== undefined;
  if (codeAt !== -1 && deployed)
    fail("--code is for the local demo users: a stage's codes are on its users' phones", 2);
  if (otp !== undefined && !deployed)
    fail(
      "--otp is for a stage's user (--stage or --stack): the local demo users' codes are computed",
      2,
    );
  if (otp !== undefined && !/^\d{6}$/.test(otp)) fail('--otp takes the 6 digits of a code', 2);
  return {
    username,
    code: codeAt !== -1,
    ...(stage !== undefined ? { stage } : {}),
    ...(stack !== undefined ? { stack } : {}),
    ...(otp !== undefined ? { otp } : {}),
  };
}

/** Cognito's refusals of a sign-in, in one line. */
function explain(error: unknown, username: string, local: boolean): never {
  const e = error as Error & { code?: string; cause?: { code?: string } };
  const who = JSON.stringify(username);
  if (e instanceof UnansweredChallenge) {
    fail(
      `${who} has not finished their first sign-in (Cognito asks for ${e.challenge}): sign in ` +
        'once on the staff page to set a password and enrol an authenticator app, then run this again',
    );
  }
  if (e.name === 'CodeMismatchException')
    fail('the code was not accepted (CodeMismatchException): codes change every 30 s');
  if (e.name === 'NotAuthorizedException' && /invalid session/i.test(e.message))
    fail(
      'the sign-in took longer than its 3 minutes (NotAuthorizedException): run the command again',
    );
  if (isUserDisabledRefusal(e)) {
    fail(
      local
        ? `user ${who} is disabled (offboarded); enable them with \`npm run access -- enable ${username}\` ` +
            '(or restart `npm start`, which restores the demo users)'
        : `user ${who} is disabled (NotAuthorizedException): an administrator enables them`,
    );
  }
  if (['NotAuthorizedException', 'UserNotFoundException'].includes(e.name)) {
    fail(
      local
        ? `unknown user ${who}; the local demo users are ${known}`
        : `the username or password was not accepted (${e.name})`,
    );
  }
  if (e.name === 'PasswordResetRequiredException')
    fail(`${who} must reset their password first (PasswordResetRequiredException)`);
  fail(`could not sign in ${who}: ${e.name}: ${e.message}`);
}

function isConnectionRefused(error: unknown): boolean {
  const e = error as Error & { code?: string; cause?: { code?: string } };
  return (
    e.code === 'ECONNREFUSED' ||
    e.cause?.code === 'ECONNREFUSED' ||
    /ECONNREFUSED|fetch failed|socket hang up/.test(String(e.message))
  );
}

/** The local stack's state, from LOCAL_DATA_DIR's stack or the one running elsewhere. */
function localState(): Partial<LocalState> & { dataDir: string } {
  const dataDir = runningDataDir();
  try {
    return { ...readLocalState(dataDir), dataDir };
  } catch (error) {
    fail((error as Error).message);
  }
}

async function localToken(args: Args): Promise<void> {
  const state = localState();
  const endpoint = state.cognito?.endpoint;
  const clientId = state.cognito?.clientId;
  const secrets = state.cognito?.demoTotpSecrets;
  if (!endpoint || !clientId || !secrets) fail(incompleteState(state.dataDir).message);
  const secret = secrets[args.username];
  if (!secret)
    fail(`unknown user ${JSON.stringify(args.username)}; the local demo users are ${known}`);
  if (args.code) {
    process.stdout.write(`${totpCode(secret)}\n`);
    return;
  }
  const client = cognitoClient(endpoint);
  try {
    const tokens = await signInWithTotp({
      client,
      clientId,
      username: args.username,
      password: DEMO_PASSWORD,
      code: () => totpCode(secret),
    });
    process.stdout.write(`${tokens.accessToken}\n`);
  } catch (error) {
    if (isConnectionRefused(error)) {
      fail(
        `the local stack is not running (no answer from ${endpoint}): start it with \`npm start\``,
      );
    }
    explain(error, args.username, true);
  } finally {
    client.destroy();
  }
}

async function stageToken(args: Args): Promise<void> {
  const [{ CloudFormationClient }, { stackUserPool }] = await Promise.all([
    import('@aws-sdk/client-cloudformation'),
    import('../sign-in/stack.ts'),
  ]);
  let stackName = args.stack;
  if (args.stage !== undefined) {
    const { makeStage } = await import('../stage/stage.ts');
    try {
      stackName = makeStage({ name: args.stage }).stackName;
    } catch (error) {
      fail((error as Error).message);
    }
  }
  const cfn = new CloudFormationClient({});
  let pool;
  try {
    pool = await stackUserPool(cfn, stackName!);
  } catch (error) {
    const e = error as Error;
    fail(
      awsSetupProblem(e) ?? `could not read stack ${stackName}'s outputs: ${e.name}: ${e.message}`,
    );
  } finally {
    cfn.destroy();
  }
  const password =
    process.env.TOKEN_PASSWORD ||
    (canAsk()
      ? await ask(`Password for ${args.username}: `, true)
      : fail('set TOKEN_PASSWORD, or run on a terminal to be asked for the password'));
  const code: SignInRequest['code'] = args.otp
    ? () => args.otp!
    : canAsk()
      ? () => ask('TOTP code from your authenticator app: ')
      : () => fail('give --otp <code>, or run on a terminal to be asked for it');
  // Sign-in calls are unsigned: the password and the code are the credentials.
  const client = new CognitoIdentityProviderClient({ region: pool.region });
  try {
    const tokens = await signInWithTotp({
      client,
      clientId: pool.clientId,
      username: args.username,
      password,
      code,
    });
    process.stdout.write(`${tokens.accessToken}\n`);
  } catch (error) {
    explain(error, args.username, false);
  } finally {
    client.destroy();
  }
}

const args = parseArgs(process.argv.slice(2));
await (args.stage !== undefined || args.stack !== undefined ? stageToken(args) : localToken(args));
