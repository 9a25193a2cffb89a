/**
 * The verbs of `npm run access` (SPEC 8). Each resolves the user (and group) before changing
 * anything, then runs its steps in order, each one safe to repeat, so that a re-run after a
 * failure completes what the first run began. Each returns what it did, for the operator, never
 * a token.
 *
 * Order of the verbs that end access, and why:
 * 1. Table first: the not-before instant (`nbf`, or `nbf:<group>`) past every token already
 *    issued. This is the step that stops old tokens from reading, and it needs nothing from
 *    Cognito but the time, so it cannot be blocked by a Cognito refusal.
 * 2. Cognito: what stops new tokens. offboard signs the user out everywhere *before* disabling
 *    them, because Cognito refuses AdminUserGlobalSignOut for a disabled user ("User is
 *    disabled"): the other order would leave their refresh tokens alive for the day they are
 *    enabled again. On a user already disabled the refusal is taken as it is (a disabled user
 *    cannot refresh, and `enable` voids every token from before it).
 * 3. Table again: the instant moved past the Cognito calls, so that a token issued while they
 *    ran (a refresh before the sign-out, a sign-in before the disable, a refresh before the group
 *    is removed) is void too. The command then returns once Cognito's clock has reached it, so a
 *    token issued after it returns is not caught by it.
 *
 * The undoing verbs give access back to new sign-ins only. add-group changes Cognito only (the
 * group's instant stays); enable enables the user, signs them out everywhere, then moves `nbf`
 * past those calls, so no token from before it (one a surviving refresh token minted between
 * the two calls included) comes back.
 */
import { groupNotBefore, NOT_BEFORE } from '../../core/access-state.ts';
import { writeNotBefore } from './access-state-table.ts';
import {
  addToGroup,
  disableUser,
  enableUser,
  globalSignOut,
  groupExists,
  isMember,
  isUserDisabledRefusal,
  removeFromGroup,
} from './cognito-actions.ts';
import { resolveUser, UnknownUserError, type StaffUser } from './resolve-user.ts';
import type { AccessTarget } from './target.ts';

export const VERBS = ['revoke', 'offboard', 'remove-group', 'enable', 'add-group'] as const;
export type Verb = (typeof VERBS)[number];
/** The verbs that take a group after the user. */
export const GROUP_VERBS: readonly Verb[] = ['remove-group', 'add-group'];

export interface VerbRequest {
  readonly verb: Verb;
  readonly user: string;
  /** remove-group and add-group only. */
  readonly group?: string;
}

/** One step of a verb: what it is about to do ('' for a closing note), and what it did. */
interface Step {
  readonly todo: string;
  /**
   * Steps of one key write the same thing again (the not-before instant, moved past the Cognito
   * calls): the later one's line replaces the earlier one's, so the operator reads the instant
   * that stands once; after a failure, the line of what was done stays.
   */
  readonly key?: string;
  run(): Promise<string>;
}

/** A verb stopped by a failed step: what was done, what failed, what was not done. */
export class VerbIncompleteError extends Error {
  override readonly name = 'VerbIncompleteError';
  readonly done: readonly string[];
  readonly failed: string;
  readonly notDone: readonly string[];
  readonly error: unknown;
  constructor(done: readonly string[], failed: string, notDone: readonly string[], error: unknown) {
    const e = error as Error;
    super(`${failed} failed: ${e.name}: ${e.message}`);
    this.done = done;
    this.failed = failed;
    this.notDone = notDone;
    this.error = error;
  }
}

/** How far ahead of Cognito's clock a stored instant may be for the command to wait for it. */
const MAX_WAIT_SECONDS = 120;

const SIGNED_OUT =
  'Cognito: signed out everywhere, every refresh token revoked (AdminUserGlobalSignOut)';

export async function runVerb(target: AccessTarget, request: VerbRequest): Promise<string[]> {
  const pool = { client: target.cognito, userPoolId: target.userPoolId };
  const user = await resolveUser(target.cognito, target.userPoolId, request.user);
  const group = request.group;
  if (group !== undefined && !(await groupExists(pool, group))) {
    throw new UnknownUserError(`No group ${group} in user pool ${target.userPoolId}`);
  }
  // Named as the operator knows them (the local pool's usernames are UUIDs, like the sub).
  const name = user.email ?? user.username;
  const header = `${request.verb}: user ${name} (sub ${user.sub}) in ${target.where}`;
  const steps = stepsOf(target, request.verb, user, group);
  const done = [header];
  const keys: (string | undefined)[] = [undefined];
  for (const [i, step] of steps.entries()) {
    try {
      const line = await step.run();
      const earlier = step.key === undefined ? -1 : keys.indexOf(step.key);
      if (earlier !== -1) {
        done.splice(earlier, 1);
        keys.splice(earlier, 1);
      }
      done.push(line);
      keys.push(step.key);
    } catch (error) {
      throw new VerbIncompleteError(
        done,
        step.todo,
        steps
          .slice(i + 1)
          .map((s) => s.todo)
          .filter(Boolean),
        error,
      );
    }
  }
  return done;
}

function stepsOf(target: AccessTarget, verb: Verb, user: StaffUser, group?: string): Step[] {
  const pool = { client: target.cognito, userPoolId: target.userPoolId };
  const clock = target.cognitoClock;

  /** The instant past Cognito's latest answer, written; `last` also waits for it. */
  const notBefore = (attribute: string, what: string, last: boolean): Step => ({
    key: attribute,
    todo: last
      ? `Table: ${attribute} moved past the Cognito calls`
      : `Table: ${attribute} set to void ${what.toLowerCase()} issued before now`,
    async run() {
      const wanted = clock.lastSecond() + 1;
      const write = await writeNotBefore({
        client: target.dynamoDb,
        tableName: target.tableName,
        sub: user.sub,
        attribute,
        notBefore: wanted,
      });
      if (last) {
        // A stored instant later than ours (an earlier run's) is kept; a sign-in works only
        // once Cognito's clock has passed it, so the command waits for it too, within reason.
        const ahead = write.notBefore - wanted;
        if (ahead > MAX_WAIT_SECONDS)
          throw new Error(
            `${write.attribute} in the table is ${ahead} s ahead of Cognito's clock ` +
              `(${new Date(write.notBefore * 1000).toISOString()}): sign-ins work only after it`,
          );
        await clock.waitUntil(Math.max(wanted, write.notBefore));
      }
      return (
        `Table: ${what} issued before ${new Date(write.notBefore * 1000).toISOString()} ` +
        `(Cognito's clock) are refused from the next request ` +
        `(${write.attribute}=${write.notBefore} on USER#${user.sub} ACCESS in ${target.tableName})`
      );
    },
  });
  /** Cognito refuses a global sign-out for a disabled user: that refusal is the verb's end. */
  const signOut: Step = {
    todo: 'Cognito: sign out everywhere (AdminUserGlobalSignOut)',
    async run() {
      try {
        await globalSignOut(pool, user.username);
        return SIGNED_OUT;
      } catch (error) {
        if (!isUserDisabledRefusal(error)) throw error;
        return (
          'Cognito: global sign-out refused, the user is already disabled ' +
          '(AdminUserGlobalSignOut); a disabled user cannot refresh, and `enable` voids ' +
          'every token from before it'
        );
      }
    },
  };

  switch (verb) {
    case 'revoke':
      return [
        notBefore(NOT_BEFORE, 'Tokens', false),
        signOut,
        notBefore(NOT_BEFORE, 'Tokens', true),
        { todo: '', run: async () => 'They may sign in again.' },
      ];
    case 'offboard':
      return [
        notBefore(NOT_BEFORE, 'Tokens', false),
        signOut,
        {
          todo: 'Cognito: disable the user (AdminDisableUser)',
          async run() {
            await disableUser(pool, user.username);
            return user.enabled
              ? 'Cognito: user disabled, no sign-in (AdminDisableUser)'
              : 'Cognito: user was already disabled (AdminDisableUser)';
          },
        },
        notBefore(NOT_BEFORE, 'Tokens', true),
      ];
    case 'remove-group': {
      const g = group!;
      return [
        notBefore(groupNotBefore(g), `Tokens claiming ${g}`, false),
        {
          todo: `Cognito: remove from ${g} (AdminRemoveUserFromGroup)`,
          async run() {
            if (!(await isMember(pool, user.username, g)))
              return `Cognito: was not in ${g}; tokens that still claim it are voided`;
            await removeFromGroup(pool, user.username, g);
            return `Cognito: removed from ${g} (AdminRemoveUserFromGroup)`;
          },
        },
        notBefore(groupNotBefore(g), `Tokens claiming ${g}`, true),
        { todo: '', run: async () => 'Their other access and refresh tokens are unchanged.' },
      ];
    }
    case 'enable':
      return [
        {
          todo: 'Cognito: enable the user (AdminEnableUser)',
          async run() {
            await enableUser(pool, user.username);
            return user.enabled
              ? 'Cognito: user was already enabled (AdminEnableUser)'
              : 'Cognito: user enabled, they may sign in (AdminEnableUser)';
          },
        },
        {
          todo: signOut.todo,
          async run() {
            await globalSignOut(pool, user.username);
            return `${SIGNED_OUT}: no session from before comes back, they sign in again`;
          },
        },
        // A refresh token that outlived the offboard (its sign-out refused) could mint a token
        // between the enable and the sign-out: voided, and a sign-in after the command works.
        notBefore(NOT_BEFORE, 'Tokens', true),
      ];
    case 'add-group': {
      const g = group!;
      return [
        {
          todo: `Cognito: add to ${g} (AdminAddUserToGroup)`,
          async run() {
            if (await isMember(pool, user.username, g)) return `Cognito: already in ${g}`;
            await addToGroup(pool, user.username, g);
            return `Cognito: added to ${g} (AdminAddUserToGroup)`;
          },
        },
        {
          todo: '',
          run: async () =>
            `Tokens issued from now on (sign-in or refresh) carry ${g}; tokens voided for it ` +
            `stay void (${groupNotBefore(g)} unchanged in the table).`,
        },
      ];
    }
  }
}
