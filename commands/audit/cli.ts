/**
 * `npm run audit -- customer <id> | transaction <id> | user <user> [--since <t>] [--until <t>]
 * [--json | --table]` (SPEC 8): the local rig's audit events about a record or by a user,
 * oldest first. `--since` / `--until` (a UTC day or an ISO time) read only the day files of the
 * days between (local/tools/audit-log.ts); without them every day is read, so that an answer is
 * complete.
 *
 * Events keep the user's `sub`; this command says who that is (the user's e-mail address, from
 * the running rig's user pool: local/tools/user-names.ts), and falls back to the sub when the pool
 * cannot say (the rig is not running, or the user was deleted). A table on a terminal (or with
 * --table); JSON lines, each event as written plus `user`, with --json or into a pipe or file.
 *
 * No events: "no events ..." on stderr and exit 0 (an answer: nobody read it). A user the pool
 * does not know and no event names: exit 1 (a question that cannot be answered).
 */
import { idProblem } from '../../core/ids.ts';
import { CommandFailure, failing } from '../command-failure.ts';
import { resolveUser, UnknownUserError, type StaffUser } from '../access/resolve-user.ts';
import { localAccessTarget, type AccessTarget } from '../access/target.ts';
import {
  AUDIT_KINDS,
  AUDIT_TIME_FORMAT,
  auditEvents,
  auditRow,
  auditTable,
  parseAuditTime,
  recordIdOf,
  type AnyAuditEvent,
  type AuditQuery,
  type AuditRange,
} from '../../local/tools/audit-log.ts';
import { isImportAuditEvent } from '../../import/audit.ts';
import { localAuditDir } from '../../local/rig/state.ts';
import { subNamer, type NameOfSub } from '../../local/tools/user-names.ts';

const USAGE =
  'usage: npm run audit -- customer <id> | transaction <id> | user <e-mail or username> ' +
  '[--since <time>] [--until <time>] [--json | --table]\n' +
  `  <time>: ${AUDIT_TIME_FORMAT}; without --since or --until, every day is read`;

interface Flags {
  json?: boolean;
  table?: boolean;
  since?: string;
  until?: string;
}

/** Flags start with `--` (a value like -5 is an id, refused as one); a value may follow `=`. */
function parse(args: readonly string[]) {
  const flags: Flags = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.includes('=') ? arg.split(/=(.*)/s) : [arg];
    if ((name === '--json' || name === '--table') && inline === undefined) {
      flags[name === '--json' ? 'json' : 'table'] = true;
    } else if (name === '--since' || name === '--until') {
      const edge = name === '--since' ? 'since' : 'until';
      const at = inline ?? args[(i += 1)];
      if (at === undefined || flags[edge] !== undefined) throw new CommandFailure(USAGE, 2);
      flags[edge] = at;
    } else throw new CommandFailure(USAGE, 2);
  }
  return { flags, positionals };
}

/** --since / --until as instants; a value that is neither a day nor a time ends the command. */
function rangeOf(flags: Flags): AuditRange {
  const range: AuditRange = {};
  for (const edge of ['since', 'until'] as const) {
    const raw = flags[edge];
    if (raw === undefined) continue;
    const at = parseAuditTime(raw, edge);
    if (!at) throw new CommandFailure(`--${edge} ${raw}: give ${AUDIT_TIME_FORMAT}`, 2);
    range[edge] = at;
  }
  if (range.since && range.until && range.since > range.until)
    throw new CommandFailure(`--since ${flags.since} is after --until ${flags.until}`, 2);
  return range;
}

/** The running stack's user pool, or undefined when the stack is not running. */
function userPool(): AccessTarget | undefined {
  try {
    return localAccessTarget();
  } catch {
    return undefined;
  }
}

/** The command's exit status; the events on stdout. */
export function auditCommand(argv: readonly string[]): Promise<number> {
  return failing('audit', () => audit(argv));
}

async function audit(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parse(argv);
  const [kind, value, ...rest] = positionals;
  if (
    !(AUDIT_KINDS as readonly (string | undefined)[]).includes(kind) ||
    !value ||
    rest.length > 0 ||
    (flags.json && flags.table)
  )
    throw new CommandFailure(USAGE, 2);
  const asTable = flags.table === true || (!flags.json && process.stdout.isTTY === true);
  const range = rangeOf(flags);
  const between = [
    ...(flags.since ? [`since ${flags.since}`] : []),
    ...(flags.until ? [`until ${flags.until}`] : []),
  ].join(' ');

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
      if (id === undefined)
        throw new CommandFailure(`${kind} ${idProblem(value) ?? 'id not accepted'} (SPEC 3.3)`, 2);
      asked = `${kind} ${id}`;
      query = { by: kind as 'customer' | 'transaction', id };
    }

    const trail = localAuditDir();
    const events: AnyAuditEvent[] = [];
    for await (const event of auditEvents(trail, query, { range })) events.push(event);

    if (events.length === 0) {
      if (kind === 'user' && !found)
        throw new CommandFailure(
          pool
            ? `unknown user: ${value} is not in the local user pool ${pool.userPoolId} and no event names it`
            : `cannot tell who ${value} is: the local rig is not running (start it with \`npm start\`, or give the user's sub)`,
        );
      process.stderr.write(
        `audit: no events for ${asked}${between ? ` ${between}` : ''} in ${trail}\n`,
      );
      return 0;
    }
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
    return 0;
  } finally {
    pool?.destroy();
  }
}
