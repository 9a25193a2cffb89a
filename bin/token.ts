/**
 * `npm run --silent token -- <username>`: prints only an access token of a local demo user, from
 * the running local stack (`npm start`). Errors go to stderr with a non-zero exit status.
 */
import { isUserDisabledRefusal } from '../access/cognito-actions';
import { DEMO_PASSWORD, DEMO_USERS, cognitoClient, signIn } from '../local/cognito';
import { incompleteState, readLocalState, runningDataDir, type LocalState } from '../local/state';
const known = DEMO_USERS.map((u) => u.username).join(', ');

function fail(message: string, status = 1): never {
  process.stderr.write(`token: ${message}\n`);
  process.exit(status);
}

const args = process.argv.slice(2);
if (args.length !== 1 || !args[0] || args[0].startsWith('-')) {
  fail(`usage: npm run --silent token -- <username>   (local demo users: ${known})`, 2);
}
const username = args[0];

// LOCAL_DATA_DIR's stack, or the one running from another terminal (local/state.ts).
const dataDir = runningDataDir();
let state: Partial<LocalState>;
try {
  state = readLocalState(dataDir);
} catch (error) {
  fail((error as Error).message);
}
const endpoint = state.cognito?.endpoint;
const clientId = state.cognito?.clientId;
if (!endpoint || !clientId) fail(incompleteState(dataDir).message);

const client = cognitoClient(endpoint);
try {
  const token = await signIn({
    client,
    clientId,
    username,
    password: DEMO_PASSWORD,
    kind: 'access',
  });
  process.stdout.write(`${token}\n`);
} catch (error) {
  const e = error as Error & { code?: string; cause?: { code?: string } };
  if (
    e.code === 'ECONNREFUSED' ||
    e.cause?.code === 'ECONNREFUSED' ||
    /ECONNREFUSED|fetch failed|socket hang up/.test(String(e.message))
  ) {
    fail(
      `the local stack is not running (no answer from ${endpoint}): start it with \`npm start\``,
    );
  }
  // Cognito's refusal for a user `npm run access -- offboard` disabled.
  if (isUserDisabledRefusal(e)) {
    fail(
      `user ${JSON.stringify(username)} is disabled (offboarded); enable them with ` +
        `\`npm run access -- enable ${username}\` (or restart \`npm start\`, which restores the demo users)`,
    );
  }
  if (
    ['NotAuthorizedException', 'UserNotFoundException', 'InvalidPasswordException'].includes(e.name)
  ) {
    fail(`unknown user ${JSON.stringify(username)}; the local demo users are ${known}`);
  }
  fail(`could not sign in ${JSON.stringify(username)}: ${e.name}: ${e.message}`);
} finally {
  client.destroy();
}
