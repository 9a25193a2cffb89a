/**
 * `npm run access -- add <e-mail> [--group <group>]`, `revoke|offboard|enable <user>` and
 * `remove-group|add-group <user> <group>` (SPEC 8): gives a staff user access, ends it or gives it
 * back, in the local rig, or in a deployed stage when USER_POOL_ID and TABLE_NAME are set
 * (docs/operations.md, offboarding).
 */
import { CommandFailure, failing } from '../command-failure.ts';
import { AddRefusedError, addUser } from './add-user.ts';
import { accessTarget, TargetError } from './target.ts';
import { UnknownUserError } from './resolve-user.ts';
import { GROUP_VERBS, runVerb, VerbIncompleteError, VERBS, type Verb } from './verbs.ts';

const USAGE =
  'usage: npm run access -- add <e-mail> [--group <group>]\n' +
  '                        | revoke <user> | offboard <user> | enable <user>\n' +
  '                        | remove-group <user> <group> | add-group <user> <group>\n' +
  '  <user>: a Cognito username or e-mail address. The local rig, or a deployed stage with\n' +
  '  USER_POOL_ID, TABLE_NAME and AWS_REGION set (stack outputs UserPoolId and TableName).';

/** The command's exit status; what was done on stdout, why not on stderr. */
export function accessCommand(argv: readonly string[]): Promise<number> {
  return failing('access', () => access(argv));
}

async function access(argv: readonly string[]): Promise<number> {
  const [verb, user, group, ...rest] = argv;
  const adding = verb === 'add';
  if (verb !== undefined && !adding && !(VERBS as readonly string[]).includes(verb))
    throw new CommandFailure(`unknown verb ${JSON.stringify(verb)}\n${USAGE}`, 2);
  if (!verb || !user || user.startsWith('-')) throw new CommandFailure(USAGE, 2);
  if (adding) {
    if (
      group !== undefined &&
      (group !== '--group' || rest.length !== 1 || rest[0]!.startsWith('-'))
    )
      throw new CommandFailure(USAGE, 2);
  } else if (GROUP_VERBS.includes(verb as Verb) ? !group || rest.length > 0 : group !== undefined)
    throw new CommandFailure(USAGE, 2);

  let target;
  try {
    target = accessTarget();
  } catch (error) {
    if (error instanceof TargetError) throw new CommandFailure(error.message);
    throw error;
  }
  try {
    const lines = adding
      ? await addUser(target, user, rest[0])
      : await runVerb(target, { verb: verb as Verb, user, group });
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UnknownUserError || error instanceof AddRefusedError)
      throw new CommandFailure(`${error.message}; nothing was changed`);
    if (adding && error instanceof VerbIncompleteError) {
      process.stdout.write(`${error.done.join('\n')}\n`);
      throw new CommandFailure(
        `INCOMPLETE: ${error.message}\naccess: complete it with: npm run access -- add-group ${user} ${rest[0]}`,
      );
    }
    if (error instanceof VerbIncompleteError) {
      // What was done on stdout as on success; what was not, on stderr.
      process.stdout.write(`${error.done.join('\n')}\n`);
      throw new CommandFailure(
        [
          `INCOMPLETE: ${error.message}`,
          ...error.notDone.map((todo) => `not done: ${todo}`),
          'Run the same command again to complete it: every step is safe to repeat.',
        ].join('\naccess: '),
      );
    }
    const e = error as Error;
    throw new CommandFailure(`${e.name}: ${e.message}; nothing was changed`);
  } finally {
    target.destroy();
  }
}
