import type { ApiEvent } from '../../functions/shared/auth.ts';
import { groupsOf, requireAccessToken, requireGroup } from '../../functions/shared/auth.ts';
import { ForbiddenError, UnauthorizedError } from '../../functions/shared/errors.ts';

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

describe('the same matrix at the function: claims that must not pass', () => {
  const readers = 'customer-readers';

  test.each([
    ['a real member among others', '[admins customer-readers tellers]', true],
    ['a real array claim', ['customer-readers'], true],
    ['a single name (a string claim)', 'customer-readers', true],
    ['a comma-joined group name', '[admins,customer-readers]', false],
    ['a comma-joined single name', 'admins,customer-readers', false],
    ['a prefix of the name', '[customer-reader]', false],
    ['the name with a suffix', '[customer-readersx]', false],
    ['another case', '[Customer-Readers]', false],
    ['the name in quotes (JSON rendering)', '["customer-readers"]', false],
    ['a JSON array string', '["admins","customer-readers"]', false],
    ['an unclosed bracket', '[customer-readers', false],
    ['a stray closing bracket', 'customer-readers]', false],
    ['the name wrapped in its own brackets', '[[customer-readers]]', false],
    ['a tab-separated pair (no group name holds whitespace)', '[admins\tcustomer-readers]', false],
    ['a newline-separated pair', '[admins\ncustomer-readers]', false],
    ['a map rendering', 'map[customer-readers:true]', false],
    ['nil, as API Gateway renders a null claim', '<nil>', false],
    ['an empty list', '[]', false],
    ['an empty string', '', false],
    ['a number', 1, false],
    ['an object', { 'customer-readers': true }, false],
    ['an array with non-strings', [1, null, { name: 'customer-readers' }], false],
  ])('cognito:groups as %s: in the group = %p', (_name, raw, allowed) => {
    const event = withClaims({ token_use: 'access', 'cognito:groups': raw });
    if (allowed) expect(() => requireGroup(event, readers)).not.toThrow();
    else expect(() => requireGroup(event, readers)).toThrow(ForbiddenError);
  });

  test.each([
    ['an ID token', { token_use: 'id' }],
    ['token_use in another case', { token_use: 'Access' }],
    ['token_use with spaces', { token_use: ' access' }],
    ['token_use as an array rendering', { token_use: '[access]' }],
    ['token_use as a real array', { token_use: ['access'] }],
    ['token_use missing, with a scope claim', { scope: 'aws.cognito.signin.user.admin' }],
    ['no claims at all', {}],
  ])('%s is not an access token: 401', (_name, claims) => {
    expect(() => requireAccessToken(withClaims(claims))).toThrow(UnauthorizedError);
  });

  test('claims without an authorizer block, or without jwt, are refused', () => {
    const bare = { requestContext: {} } as unknown as ApiEvent;
    expect(() => requireAccessToken(bare)).toThrow(UnauthorizedError);
    expect(() => requireGroup(bare, readers)).toThrow(ForbiddenError);
    const noJwt = { requestContext: { authorizer: {} } } as unknown as ApiEvent;
    expect(() => requireAccessToken(noJwt)).toThrow(UnauthorizedError);
  });
});
