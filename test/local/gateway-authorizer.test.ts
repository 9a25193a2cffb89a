/**
 * The local gateway's JWT authorizer, against a real cognito-local and a fake route table (so
 * that only the gateway is under test): every token it must refuse, real ones from another user
 * pool and another app client among them. What a valid token reaches: gateway-events.test.ts.
 */
import {
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { cognitoClient, signIn } from '../../local/cognito/user-pool.ts';
import {
  b64url,
  craft,
  hmacWithPublicKey,
  otherRsaKey,
  unsigned,
  withEditedPayload,
} from '../support/jwt.ts';
import { accessClaims, calls, cognito, get, useGateway } from '../support/gateway.ts';

let otherPoolToken: string;
let otherClientToken: string;

useGateway();

beforeAll(async () => {
  // Real tokens from elsewhere: another user pool, and another app client of this pool.
  const admin = cognitoClient(cognito.endpoint);
  try {
    const pool = await admin.send(
      new CreateUserPoolCommand({ PoolName: 'other', UsernameAttributes: ['email'] }),
    );
    const otherPoolId = pool.UserPool!.Id!;
    const otherPoolClient = await admin.send(
      new CreateUserPoolClientCommand({ UserPoolId: otherPoolId, ClientName: 'x' }),
    );
    const username = 'someone@example.com';
    await admin.send(
      new AdminCreateUserCommand({
        UserPoolId: otherPoolId,
        Username: username,
        UserAttributes: [{ Name: 'email', Value: username }],
        MessageAction: 'SUPPRESS',
      }),
    );
    await admin.send(
      new AdminSetUserPasswordCommand({
        UserPoolId: otherPoolId,
        Username: username,
        Password: 'Other-Passw0rd!',
        Permanent: true,
      }),
    );
    otherPoolToken = await signIn({
      client: admin,
      clientId: otherPoolClient.UserPoolClient!.ClientId!,
      username,
      password: 'Other-Passw0rd!',
    });
    const otherClient = await admin.send(
      new CreateUserPoolClientCommand({
        UserPoolId: cognito.userPoolId,
        ClientName: 'another-app',
      }),
    );
    otherClientToken = await signIn({
      client: admin,
      clientId: otherClient.UserPoolClient!.ClientId!,
      username: 'compliance@example.com',
      password: (await import('../../local/cognito/user-pool.ts')).DEMO_PASSWORD,
      totpSecret: cognito.demoTotpSecrets['compliance@example.com'],
    });
  } finally {
    admin.destroy();
  }
});

describe('the authorizer refuses, without invoking the function', () => {
  const cases: [string, () => Promise<Record<string, string>>][] = [
    ['no Authorization header', async () => ({})],
    ['an empty bearer token', async () => ({ authorization: 'Bearer ' })],
    ['a malformed token', async () => ({ authorization: 'Bearer not-a-jwt' })],
    ['a token that is not JSON', async () => ({ authorization: 'Bearer a.b.c' })],
    [
      'a token signed by another key',
      async () => ({ authorization: `Bearer ${craft(accessClaims(), { key: otherRsaKey() })}` }),
    ],
    [
      'a real token whose payload was altered',
      async () => {
        const [head, , signature] = (await cognito.tokenFor('teller@example.com')).split('.');
        return { authorization: `Bearer ${head}.${b64url(accessClaims())}.${signature}` };
      },
    ],
    [
      "forged groups: the teller's real token with customer-readers added, old signature",
      async () => ({
        authorization: `Bearer ${withEditedPayload(await cognito.tokenFor('teller@example.com'), (claims) => ({ ...claims, 'cognito:groups': ['customer-readers'] }))}`,
      }),
    ],
    [
      "forged groups: the teller's claims with customer-readers, re-signed with another key under the pool's kid",
      async () => {
        const teller = await cognito.tokenFor('teller@example.com');
        const claims = JSON.parse(Buffer.from(teller.split('.')[1]!, 'base64url').toString());
        return {
          authorization: `Bearer ${craft({ ...claims, 'cognito:groups': ['customer-readers'] }, { key: otherRsaKey() })}`,
        };
      },
    ],
    [
      'a real token with one character of its signature changed',
      async () => {
        const token = await cognito.tokenFor('teller@example.com');
        const last = token.at(-2) === 'A' ? 'B' : 'A';
        return { authorization: `Bearer ${token.slice(0, -2)}${last}${token.at(-1)}` };
      },
    ],
    [
      'a real token with its signature removed',
      async () => ({
        authorization: `Bearer ${(await cognito.tokenFor('teller@example.com')).replace(/[^.]+$/, '')}`,
      }),
    ],
    [
      "HS256 signed with the pool's public key as the secret (key confusion)",
      async () => ({ authorization: `Bearer ${hmacWithPublicKey(accessClaims())}` }),
    ],
    [
      'an unsigned token (alg None)',
      async () => ({ authorization: `Bearer ${unsigned(accessClaims(), 'None')}` }),
    ],
    [
      'an unsigned token that keeps a real signature',
      async () => {
        const [, , signature] = (await cognito.tokenFor('teller@example.com')).split('.');
        return { authorization: `Bearer ${unsigned(accessClaims())}${signature}` };
      },
    ],
    [
      'a token with a fourth segment',
      async () => ({ authorization: `Bearer ${craft(accessClaims())}.extra` }),
    ],
    [
      'a token whose exp is a string',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ exp: String(Math.floor(Date.now() / 1000) + 300) }))}`,
      }),
    ],
    ['Basic credentials', async () => ({ authorization: 'Basic dGVsbGVyOnBhc3N3b3Jk' })],
    [
      'two tokens in the header',
      async () => ({
        authorization: `Bearer ${await cognito.tokenFor('teller@example.com')} Bearer ${await cognito.tokenFor('teller@example.com')}`,
      }),
    ],
    [
      'an expired token',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ exp: Math.floor(Date.now() / 1000) - 5 }))}`,
      }),
    ],
    [
      'a token without exp',
      async () => ({ authorization: `Bearer ${craft(accessClaims({ exp: undefined }))}` }),
    ],
    [
      'a token not valid yet (nbf)',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ nbf: Math.floor(Date.now() / 1000) + 600 }))}`,
      }),
    ],
    [
      'a token issued in the future (iat)',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ iat: Math.floor(Date.now() / 1000) + 600 }))}`,
      }),
    ],
    [
      'a token with another issuer',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ iss: `${cognito.endpoint}/local_other` }))}`,
      }),
    ],
    [
      'a real token from another user pool',
      async () => ({ authorization: `Bearer ${otherPoolToken}` }),
    ],
    [
      'a real token for another app client',
      async () => ({ authorization: `Bearer ${otherClientToken}` }),
    ],
    [
      'an ID token for another audience',
      async () => ({
        authorization: `Bearer ${craft(accessClaims({ token_use: 'id', aud: 'someone-else' }))}`,
      }),
    ],
    [
      'a token whose aud is wrong even though client_id is right',
      async () => ({ authorization: `Bearer ${craft(accessClaims({ aud: 'someone-else' }))}` }),
    ],
    [
      'an unsigned token (alg none)',
      async () => ({
        authorization: `Bearer ${unsigned(accessClaims())}`,
      }),
    ],
    [
      'a token with an unknown key id',
      async () => ({
        authorization: `Bearer ${craft(accessClaims(), { header: { kid: 'other' } })}`,
      }),
    ],
  ];

  test.each(cases)('%s: 401 {"message":"Unauthorized"}', async (_name, headers) => {
    const res = await get('/things/1', await headers());
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('{"message":"Unauthorized"}');
    expect(calls).toHaveLength(0);
  });

  test('the crafted tokens differ from a valid one only in what is tested', async () => {
    const res = await get('/things/1', { authorization: `Bearer ${craft(accessClaims())}` });
    expect(res.status).toBe(200);
  });
});
