/**
 * `npm start`: the whole rig on this machine, data under .local/, the API on
 * http://127.0.0.1:${PORT:-3000}. Ctrl-C (or SIGTERM) stops everything.
 */
import { plural } from '../../core/plural.ts';
import { execFileSync } from 'node:child_process';
import { relative } from 'node:path';
import { CUSTOMER_READERS_GROUP } from '../../core/groups.ts';
import type { LocalRig } from './rig.ts';
import { checkStartSettings, StartSettingError, type StartSettings } from './start-settings.ts';
import { removeOwnRunningPointer, writeRunningPointer } from './state.ts';

// Every setting passed on is checked before anything starts (a bad one: one line, exit 2).
let settings: StartSettings;
try {
  settings = await checkStartSettings(process.env);
} catch (error) {
  if (!(error instanceof StartSettingError)) throw error;
  console.error(error.message);
  process.exit(2);
}
// Loaded only once the settings hold: a refusal comes before the emulators' modules load.
const [{ startLocalRig }, { DEMO_PASSWORD, DEMO_USERS }, { DOCS_PATH }, { STAFF_APP_PATH }] =
  await Promise.all([
    import('./rig.ts'),
    import('../cognito/user-pool.ts'),
    import('../gateway/docs-page.ts'),
    import('../../staff-app/files.ts'),
  ]);
const { dataDir } = settings;
const shownDir = relative(process.cwd(), dataDir).startsWith('..')
  ? dataDir
  : relative(process.cwd(), dataDir) || '.';

let rig: LocalRig | undefined;
let stopping = false;

async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (!rig) return; // still starting: stopped as soon as it is up (see below)
  console.log(`\n${signal}: stopping the local rig...`);
  const force = setTimeout(() => {
    console.error('Could not stop everything within 15 s; exiting anyway');
    process.exit(1);
  }, 15_000);
  try {
    removeOwnRunningPointer(dataDir);
    await rig.stop();
    console.log('Stopped.');
  } catch (error) {
    console.error(`Error while stopping: ${(error as Error).message}`);
  } finally {
    clearTimeout(force);
  }
  process.exit(0);
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGHUP', () => void shutdown('SIGHUP'));

/**
 * The processes that launched us: under `npm start`, `sh` and `npm`. npm does not
 * pass a SIGTERM on to the script, so when any of them goes away we stop too, rather than leave
 * the rig (and its Java process) running with nobody to stop it.
 */
function launchers(): number[] {
  const chain: number[] = [];
  try {
    let pid = process.ppid;
    for (let depth = 0; depth < 4 && pid > 1; depth += 1) {
      chain.push(pid);
      const [ppid, ...args] = execFileSync('ps', ['-o', 'ppid=,args=', '-p', String(pid)])
        .toString()
        .trim()
        .split(/\s+/);
      if (args.slice(0, 2).some((arg) => /(^|\/)npm(-cli\.js)?$/.test(arg))) return chain;
      pid = Number(ppid);
    }
  } catch {
    // no ps (Windows): the direct parent only
  }
  return [process.ppid]; // not under npm: the direct parent only
}
const originalParent = process.ppid;
const watched = launchers();
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
setInterval(() => {
  if (process.ppid !== originalParent || !watched.every(alive)) void shutdown('parent exited');
}, 1000).unref();

console.log(`Starting the local rig (data in ${shownDir}/) ...`);
try {
  rig = await startLocalRig({
    port: settings.ports.PORT,
    dataDir,
    ports: {
      dynamoDb: settings.ports.DYNAMODB_PORT,
      cognito: settings.ports.COGNITO_PORT,
      s3: settings.ports.S3_PORT,
    },
  });
} catch (error) {
  if (stopping) process.exit(0);
  const message = (error as Error).message;
  const hint = /already in use/.test(message)
    ? '\n(the ports can be changed with PORT, DYNAMODB_PORT, COGNITO_PORT and S3_PORT; 0 = any free port)'
    : '';
  console.error(`\nThe local rig could not start: ${message}${hint}`);
  process.exit(1);
}
if (stopping) {
  stopping = false;
  await shutdown('SIGINT');
}
// Started with another LOCAL_DATA_DIR: the tools in other terminals find it (local/rig/state.ts).
try {
  writeRunningPointer(dataDir);
} catch (error) {
  console.error(`(other terminals need LOCAL_DATA_DIR set: ${(error as Error).message})`);
}

// Since this process started (npm adds about half a second before it).
const seconds = process.uptime().toFixed(1);
const api = rig.apiUrl;
const env = process.env.LOCAL_DATA_DIR ? `LOCAL_DATA_DIR=${process.env.LOCAL_DATA_DIR} ` : '';
const token = (user: string) => `$(${env}npm run --silent token -- ${user})`;
const [teller, compliance] = DEMO_USERS.map((u) => u.username) as [string, string];
const seeded = rig.seeded
  ? `; demo data imported (${plural(rig.seeded.transactions, 'transaction')}, ${plural(rig.seeded.customers, 'customer')})`
  : '';

console.log(`
Local rig ready in ${seconds} s${seeded}

  Staff page       ${api}${STAFF_APP_PATH}  (sign in as a demo user: password ${DEMO_PASSWORD}, code from the command below)
  API              ${api}
  API docs         ${api}${DOCS_PATH}  (try it in a browser, with a token from the command below)
  DynamoDB Local   ${rig.dynamoDbEndpoint}  (table ${rig.tableName})
  Cognito (local)  ${rig.cognito.endpoint}  (user pool ${rig.cognito.userPoolId}, app client ${rig.cognito.clientId})
  S3 (local)       ${rig.s3Endpoint}  (bucket ${rig.bucketName})

Demo users: ${teller} (no group), ${compliance} (in ${CUSTOMER_READERS_GROUP}),
  restored to this at every start (enabled, these groups) whatever \`npm run access\` did to them
A demo user's sign-in code for the staff page (new every 30 s):
  ${env}npm run --silent token -- --code ${teller}
An access token (printed alone, for scripts):
  ${env}npm run --silent token -- ${compliance}

Try:
  curl -s -H "Authorization: Bearer ${token(teller)}" ${api}/transactions/1
  curl -s -H "Authorization: Bearer ${token(compliance)}" ${api}/customers/1
  # 403, the teller is not in ${CUSTOMER_READERS_GROUP}:
  curl -s -H "Authorization: Bearer ${token(teller)}" ${api}/customers/1
  # 401, no token:
  curl -s -i ${api}/transactions/1
  # End the teller's access, and give it back (SPEC 8):
  ${env}npm run access -- offboard ${teller}
  ${env}npm run access -- enable ${teller}

Requests are logged below, one JSON line each. Ctrl-C stops everything.
`);
