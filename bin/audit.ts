/**
 * `npm run audit -- customer <id> | transaction <id> | user <user> [--json | --table]` (SPEC 8):
 * the local stack's audit events about a record or by a user, oldest first.
 *
 * Events keep the user's `sub`; this command says who that is (the user's e-mail address, from
 * the running stack's user pool: local/user-names.ts), and falls back to the sub when the pool
 * cannot say (the stack is not running, or the user was deleted). A table on a terminal (or with
 * --table); JSON lines, each event as written plus `user`, with --json or into a pipe or file.
 *
 * No events: "no events ..." on stderr and exit 0 (an answer: nobody read it). A user the pool
 * does not know and no event names: exit 1 (a question that cannot be answered).
 */
import { idProblem } from '../core/ids';
import { resolveUser, UnknownUserError, type StaffUser } from '../access/resolve-user';
import { localAccessTarget, type AccessTarget } from '../access/target';
import {
  AUDIT_KINDS,
  auditEvents,
  auditRow,
  auditTable,
  recordIdOf,
  type AnyAuditEvent,
  type AuditQuery,
} from '../local/audit-log';
import { isImportAuditEvent } from '../import/audit';
import { localAuditFile } from '../local/state';
import { subNamer, type NameOfSub } from '../local/user-names';

const USAGE =
  'usage: npm run audit -- customer <id> | transaction <id> | user <e-mail or username> [--json | --table]';

function fail(message: string, status = 1): never {
  process.stderr.write(`audit: ${message}\n`);
  process.exit(status);
}

const args = process.argv.slice(2);
const flags = args.filter((arg) => arg.startsWith('--'));
const [kind, value, ...rest] = args.filter((arg) => !arg.startsWith('--'));
if (
  !(AUDIT_KINDS as readonly (string | undefined)[]).includes(kind) ||
  !value ||
  rest.length > 0 ||
  flags.some((flag) => flag !== '--json' && flag !== '--table') ||
  flags.length > 1
)
  fail(USAGE, 2);
const asTable = flags[0] === '--table' || (flags[0] !== '--json' && process.stdout.isTTY === true);

/** The running stack's user pool, or undefined when the stack is not running. */
function userPool(): AccessTarget | undefined {
  try {
    return localAccessTarget();
  } catch {
    return undefined;
  }
}

const pool = userPool();
try {
  let query: AuditQuery;
  let asked: string;
  let found: StaffUser | undefined;
  if (kind === 'user') {
    asked = `user ${value}`;
    if (pool) {
      try {
        found = await resolveUser(pool.cognito, pool.userPoolId, value);
      } catch (error) {
        if (!(error instanceof UnknownUserError)) throw error;
      }
    }
    // The name as given too: a deleted user's sub is still in the events.
    query = { by: 'user', names: found ? [value, found.sub, found.username] : [value] };
  } else {
    const id = recordIdOf(value);
    if (id === undefined) fail(`${kind} ${idProblem(value) ?? 'id not accepted'} (SPEC 3.3)`, 2);
    asked = `${kind} ${id}`;
    query = { by: kind as 'customer' | 'transaction', id };
  }

  const file = localAuditFile();
  const events: AnyAuditEvent[] = [];
  for await (const event of auditEvents(file, query)) events.push(event);

  if (events.length === 0) {
    if (kind === 'user' && !found)
      fail(
        pool
          ? `unknown user: ${value} is not in the local user pool ${pool.userPoolId} and no event names it`
          : `cannot tell who ${value} is: the local stack is not running (start it with \`npm start\`, or give the user's sub)`,
      );
    process.stderr.write(`audit: no events for ${asked} in ${file}\n`);
  } else {
    // Asked for by e-mail address: that is the name to show for the user's events.
    const known = new Map(found && value.includes('@') ? [[found.sub, value]] : []);
    const name: NameOfSub = pool
      ? subNamer(pool.cognito, pool.userPoolId, known)
      : async () => undefined;
    const who = async (event: AnyAuditEvent): Promise<string> => {
      if (isImportAuditEvent(event)) return '';
      const sub = event.sub ?? event.username;
      if (sub === null) return '(no user)';
      return (await name(sub)) ?? sub;
    };
    if (asTable) {
      const rows = [];
      for (const event of events) rows.push(auditRow(event, await who(event)));
      process.stdout.write(`${auditTable(rows)}\n`);
    } else {
      for (const event of events) {
        const line = isImportAuditEvent(event) ? event : { ...event, user: await who(event) };
        process.stdout.write(`${JSON.stringify(line)}\n`);
      }
    }
  }
} finally {
  pool?.destroy();
}
