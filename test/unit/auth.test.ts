import type { ApiEvent } from '../../functions/shared/auth';
import { groupsOf, requireAccessToken, requireGroup } from '../../functions/shared/auth';
import { ForbiddenError, UnauthorizedError } from '../../functions/shared/errors';

const withClaims = (claims: Record<string, unknown> | undefined): ApiEvent =>
  ({
    requestContext: {
      authorizer: claims === undefined ? undefined : { jwt: { claims, scopes: null } },
    },
  }) as unknown as ApiEvent;

describe('claims from the JWT authorizer', () => {
  test.each([
    ['[customer-readers]', ['customer-readers']],
    ['[admins customer-readers]', ['admins', 'customer-readers']],
    ['customer-readers', ['customer-readers']],
    ['[]', []],
    ['', []],
  ])('cognito:groups %p as API Gateway passes it', (raw, groups) => {
    expect(groupsOf(withClaims({ 'cognito:groups': raw }))).toEqual(groups);
  });

  test('an array claim is read as an array', () => {
    expect(groupsOf(withClaims({ 'cognito:groups': ['a', 'customer-readers'] }))).toEqual([
      'a',
      'customer-readers',
    ]);
  });

  test('a group whose name merely contains customer-readers does not pass', () => {
    expect(() =>
      requireGroup(withClaims({ 'cognito:groups': '[not-customer-readers]' }), 'customer-readers'),
    ).toThrow(ForbiddenError);
  });

  test('no groups claim, or no authorizer at all, is forbidden', () => {
    expect(() => requireGroup(withClaims({ token_use: 'access' }), 'customer-readers')).toThrow(
      ForbiddenError,
    );
    expect(() => requireGroup(withClaims(undefined), 'customer-readers')).toThrow(ForbiddenError);
  });

  test('only access tokens are accepted', () => {
    expect(() => requireAccessToken(withClaims({ token_use: 'access' }))).not.toThrow();
    expect(() => requireAccessToken(withClaims({ token_use: 'id' }))).toThrow(UnauthorizedError);
    expect(() => requireAccessToken(withClaims({}))).toThrow(UnauthorizedError);
    expect(() => requireAccessToken(withClaims(undefined))).toThrow(UnauthorizedError);
  });
});
