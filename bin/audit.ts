/**
 * `npm run audit -- customer <id> | transaction <id> | user <user>` (SPEC 8): the local stack's
 * audit events about a record or by a user, oldest first, one JSON object a line. A user is named
 * by e-mail address or Cognito username; while the local stack runs, its user pool says which
 * `sub` that is (tokens of the local pool carry the sub as their username).
 */
import { idProblem } from '../core/ids';
import { resolveUser, UnknownUserError } from '../access/resolve-user';
import { localAccessTarget } from '../access/target';
import { AUDIT_KINDS, auditEvents, recordIdOf, type AuditQuery } from '../local/audit-log';
import { localAuditFile } from '../local/state';

const USAGE =
  'usage: npm run audit -- customer <id> | transaction <id> | user <e-mail or username>';

function fail(message: string, status = 1): never {
  process.stderr.write(`audit: ${message}\n`);
  process.exit(status);
}

/** The names a user's events may carry: as given, and the sub and username the pool knows. */
async function namesOf(user: string): Promise<string[]> {
  let target;
  try {
    target = localAccessTarget();
  } catch {
    return [user]; // the stack is not running: match the name as given
  }
  try {
    const found = await resolveUser(target.cognito, target.userPoolId, user);
    return [user, found.sub, found.username];
  } catch (error) {
    if (error instanceof UnknownUserError) return [user];
    throw error;
  } finally {
    target.destroy();
  }
}

const [kind, value, ...rest] = process.argv.slice(2);
if (!(AUDIT_KINDS as readonly (string | undefined)[]).includes(kind) || !value || rest.length > 0)
  fail(USAGE, 2);

let query: AuditQuery;
if (kind === 'user') query = { by: 'user', names: await namesOf(value) };
else {
  const id = recordIdOf(value);
  if (id === undefined) fail(`${kind} ${idProblem(value) ?? 'id not accepted'} (SPEC 3.3)`, 2);
  query = { by: kind as 'customer' | 'transaction', id };
}
for await (const line of auditEvents(localAuditFile(), query)) process.stdout.write(`${line}\n`);
