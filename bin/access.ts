/**
 * `npm run access -- revoke|offboard|enable <user>` and
 * `npm run access -- remove-group|add-group <user> <group>` (SPEC 8): ends (or gives back) a staff
 * user's access in the local stack, or in a deployed stage when USER_POOL_ID and TABLE_NAME are
 * set (docs/operations.md, offboarding). The logic is in access/.
 */
import { accessTarget, TargetError } from '../access/target.ts';
import { UnknownUserError } from '../access/resolve-user.ts';
import { GROUP_VERBS, runVerb, VerbIncompleteError, VERBS, type Verb } from '../access/verbs.ts';

const USAGE =
  'usage: npm run access -- revoke <user> | offboard <user> | enable <user>\n' +
  '                        | remove-group <user> <group> | add-group <user> <group>\n' +
  '  <user>: a Cognito username or e-mail address. The local stack, or a deployed stage with\n' +
  '  USER_POOL_ID, TABLE_NAME and AWS_REGION set (stack outputs UserPoolId and TableName).';

function fail(message: string, status = 1): never {
  process.stderr.write(`access: ${message}\n`);
  process.exit(status);
}

const [verb, user, group, ...rest] = process.argv.slice(2);
if (verb !== undefined && !(VERBS as readonly string[]).includes(verb))
  fail(`unknown verb ${JSON.stringify(verb)}\n${USAGE}`, 2);
if (!verb || !user || user.startsWith('-')) fail(USAGE, 2);
if (GROUP_VERBS.includes(verb as Verb) ? !group || rest.length > 0 : group !== undefined)
  fail(USAGE, 2);

let target;
try {
  target = accessTarget();
} catch (error) {
  if (error instanceof TargetError) fail(error.message);
  throw error;
}
try {
  const lines = await runVerb(target, { verb: verb as Verb, user, group });
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (error) {
  if (error instanceof UnknownUserError) fail(`${error.message}; nothing was changed`);
  if (error instanceof VerbIncompleteError) {
    // What was done on stdout as on success; what was not, on stderr.
    process.stdout.write(`${error.done.join('\n')}\n`);
    fail(
      [
        `INCOMPLETE: ${error.message}`,
        ...error.notDone.map((todo) => `not done: ${todo}`),
        'Run the same command again to complete it: every step is safe to repeat.',
      ].join('\naccess: '),
    );
  }
  const e = error as Error;
  fail(`${e.name}: ${e.message}; nothing was changed`);
} finally {
  target.destroy();
}
