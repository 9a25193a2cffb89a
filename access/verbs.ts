/**
 * The verbs of `npm run access` (SPEC 8). Each resolves the user before changing anything, then
 * acts in Cognito first and writes the access state last, so that no token can be issued after
 * the not-before time with the access the verb takes away. Each returns what it did, for the
 * operator, never a token.
 */
import { groupNotBefore, NOT_BEFORE } from '../core/access-state';
import { writeNotBefore, type NotBeforeWrite } from './access-state-table';
import {
  disableUser,
  globalSignOut,
  groupExists,
  isMember,
  removeFromGroup,
} from './cognito-actions';
import { resolveUser, UnknownUserError } from './resolve-user';
import type { AccessTarget } from './target';

export const VERBS = ['revoke', 'offboard', 'remove-group'] as const;
export type Verb = (typeof VERBS)[number];

export interface VerbRequest {
  readonly verb: Verb;
  readonly user: string;
  /** remove-group only. */
  readonly group?: string;
}

function voided(target: AccessTarget, sub: string, write: NotBeforeWrite, what: string): string {
  return (
    `${what} issued before ${new Date(write.notBefore * 1000).toISOString()} are refused from ` +
    `the next request (${write.attribute}=${write.notBefore} on USER#${sub} ACCESS in ${target.tableName})`
  );
}

export async function runVerb(target: AccessTarget, request: VerbRequest): Promise<string[]> {
  const pool = { client: target.cognito, userPoolId: target.userPoolId };
  const user = await resolveUser(target.cognito, target.userPoolId, request.user);
  const who = `user ${user.username} (sub ${user.sub})`;
  const nbf = (attribute: string) =>
    writeNotBefore({
      client: target.dynamoDb,
      tableName: target.tableName,
      sub: user.sub,
      attribute,
    });
  const lines = [`${request.verb}: ${who} in ${target.where}`];

  switch (request.verb) {
    case 'revoke': {
      await globalSignOut(pool, user.username);
      lines.push(
        'Cognito: signed out everywhere, every refresh token revoked (AdminUserGlobalSignOut)',
      );
      lines.push(voided(target, user.sub, await nbf(NOT_BEFORE), 'Tokens'));
      lines.push('They may sign in again.');
      return lines;
    }
    case 'offboard': {
      await disableUser(pool, user.username);
      lines.push(
        user.enabled
          ? 'Cognito: user disabled, no sign-in (AdminDisableUser)'
          : 'Cognito: user was already disabled (AdminDisableUser)',
      );
      await globalSignOut(pool, user.username);
      lines.push(
        'Cognito: signed out everywhere, every refresh token revoked (AdminUserGlobalSignOut)',
      );
      lines.push(voided(target, user.sub, await nbf(NOT_BEFORE), 'Tokens'));
      return lines;
    }
    case 'remove-group': {
      const group = request.group!;
      if (!(await groupExists(pool, group))) {
        throw new UnknownUserError(`No group ${group} in user pool ${target.userPoolId}`);
      }
      if (await isMember(pool, user.username, group)) {
        await removeFromGroup(pool, user.username, group);
        lines.push(`Cognito: removed from ${group} (AdminRemoveUserFromGroup)`);
      } else {
        lines.push(`Cognito: was not in ${group}; tokens that still claim it are voided below`);
      }
      lines.push(
        voided(target, user.sub, await nbf(groupNotBefore(group)), `Tokens claiming ${group}`),
      );
      lines.push('Their other access and refresh tokens are unchanged.');
      return lines;
    }
  }
}
