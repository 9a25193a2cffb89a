/**
 * Issue 31: the local Cognito requires MFA (TOTP only) and answers as Cognito does
 * (local/cognito/mfa.ts over cognito-local): a password alone yields a challenge, never tokens;
 * a new user's first sign-in is a new password, then the enrolment of a TOTP app; codes are
 * checked; tokens from an MFA sign-in refresh and are revoked; sessions expire and are spent;
 * a restart keeps each demo user's TOTP secret and turns MFA on in a pool made before.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdminCreateUserCommand,
  AdminDisableUserCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  AssociateSoftwareTokenCommand,
  DescribeUserPoolCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  RevokeTokenCommand,
  SetUserPoolMfaConfigCommand,
  VerifySoftwareTokenCommand,
  type CognitoIdentityProviderClient,
  type InitiateAuthCommandOutput,
} from '@aws-sdk/client-cognito-identity-provider';
import {
  DEMO_PASSWORD,
  DEMO_TOTP_FILE,
  DEMO_USERS,
  cognitoClient,
  startCognito,
  type LocalCognito,
} from '../../local/cognito/user-pool.ts';
import { AUTH_SESSION_MS } from '../../local/cognito/mfa.ts';
import { totpCode } from '../../sign-in/totp.ts';

const TELLER = 'teller@example.com';
const NEW_PASSWORD = 'First-Sign-in-Passw0rd!';

let dataDir: string;
let cognito: LocalCognito;
let client: CognitoIdentityProviderClient;

async function start(): Promise<void> {
  cognito = await startCognito({ port: 0, dataDir });
  client = cognitoClient(cognito.endpoint);
}
async function stop(): Promise<void> {
  client?.destroy();
  await cognito?.stop();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cognito-mfa-'));
  await start();
}, 60_000);

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const passwordAuth = (username: string, password: string) =>
  client.send(
    new InitiateAuthCommand({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: cognito.clientId,
      AuthParameters: { USERNAME: username, PASSWORD: password },
    }),
  );

const respond = (
  ChallengeName: 'SOFTWARE_TOKEN_MFA' | 'NEW_PASSWORD_REQUIRED' | 'MFA_SETUP',
  Session: string | undefined,
  responses: Record<string, string>,
) =>
  client.send(
    new RespondToAuthChallengeCommand({
      ClientId: cognito.clientId,
      ChallengeName,
      Session,
      ChallengeResponses: responses,
    }),
  );

const refresh = (token: string) =>
  client.send(
    new InitiateAuthCommand({
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: cognito.clientId,
      AuthParameters: { REFRESH_TOKEN: token },
    }),
  );

/** The challenge a password-only sign-in answered: never tokens. */
function challengeOf(answer: InitiateAuthCommandOutput) {
  expect(answer.AuthenticationResult).toBeUndefined();
  expect(answer.Session).toEqual(expect.any(String));
  return {
    name: answer.ChallengeName,
    params: answer.ChallengeParameters,
    session: answer.Session,
  };
}

/** A user as an administrator makes one in a stage: a temporary password, nothing else. */
async function newStaffUser(email: string, temporaryPassword: string): Promise<void> {
  await client.send(
    new AdminCreateUserCommand({
      UserPoolId: cognito.userPoolId,
      Username: email,
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'email_verified', Value: 'true' },
      ],
      MessageAction: 'SUPPRESS',
      TemporaryPassword: temporaryPassword,
    }),
  );
}

describe('a demo user', () => {
  test('a password alone yields the SOFTWARE_TOKEN_MFA challenge; a wrong code is refused; the right one gives tokens', async () => {
    const first = challengeOf(await passwordAuth(TELLER, DEMO_PASSWORD));
    expect(first.name).toBe('SOFTWARE_TOKEN_MFA');
    const code = cognito.currentCode(TELLER);
    const wrong = String((Number(code) + 500_000) % 1_000_000).padStart(6, '0');
    await expect(
      respond('SOFTWARE_TOKEN_MFA', first.session, {
        USERNAME: TELLER,
        SOFTWARE_TOKEN_MFA_CODE: wrong,
      }),
    ).rejects.toMatchObject({ name: 'CodeMismatchException' });
    // A wrong code leaves the session to try again, as the sign-in page lets one do.
    const answer = await respond('SOFTWARE_TOKEN_MFA', first.session, {
      USERNAME: TELLER,
      SOFTWARE_TOKEN_MFA_CODE: code,
    });
    expect(answer.AuthenticationResult).toMatchObject({
      AccessToken: expect.any(String),
      IdToken: expect.any(String),
      RefreshToken: expect.any(String),
    });
    // Spent: the same session and code again are refused.
    await expect(
      respond('SOFTWARE_TOKEN_MFA', first.session, {
        USERNAME: TELLER,
        SOFTWARE_TOKEN_MFA_CODE: code,
      }),
    ).rejects.toMatchObject({
      name: 'NotAuthorizedException',
      message: 'Invalid session for the user, session is expired.',
    });
  });

  test('a wrong password is refused as Cognito refuses it, and so is an unknown user', async () => {
    for (const [user, password] of [
      [TELLER, 'not-the-password'],
      ['nobody@example.com', DEMO_PASSWORD],
    ] as const) {
      await expect(passwordAuth(user, password)).rejects.toMatchObject({
        name: 'NotAuthorizedException',
        message: 'Incorrect username or password.',
      });
    }
  });

  test('the refresh token of an MFA sign-in refreshes, and stops working once revoked', async () => {
    const first = challengeOf(await passwordAuth(TELLER, DEMO_PASSWORD));
    const answer = await respond('SOFTWARE_TOKEN_MFA', first.session, {
      USERNAME: TELLER,
      SOFTWARE_TOKEN_MFA_CODE: cognito.currentCode(TELLER),
    });
    const refreshToken = answer.AuthenticationResult!.RefreshToken!;
    expect((await refresh(refreshToken)).AuthenticationResult?.AccessToken).toEqual(
      expect.any(String),
    );
    await client.send(new RevokeTokenCommand({ ClientId: cognito.clientId, Token: refreshToken }));
    await expect(refresh(refreshToken)).rejects.toMatchObject({ name: 'NotAuthorizedException' });
  });

  test('a session is refused once its 3 minutes have passed, and for another user', async () => {
    const first = challengeOf(await passwordAuth(TELLER, DEMO_PASSWORD));
    await expect(
      respond('SOFTWARE_TOKEN_MFA', first.session, {
        USERNAME: 'compliance@example.com',
        SOFTWARE_TOKEN_MFA_CODE: cognito.currentCode('compliance@example.com'),
      }),
    ).rejects.toMatchObject({ name: 'NotAuthorizedException' });
    const code = cognito.currentCode(TELLER);
    const realNow = Date.now.bind(Date);
    const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + AUTH_SESSION_MS);
    try {
      await expect(
        respond('SOFTWARE_TOKEN_MFA', first.session, {
          USERNAME: TELLER,
          SOFTWARE_TOKEN_MFA_CODE: code,
        }),
      ).rejects.toMatchObject({
        name: 'NotAuthorizedException',
        message: 'Invalid session for the user, session is expired.',
      });
    } finally {
      later.mockRestore();
    }
  });

  test('tokenFor answers the challenge with the kept secret', async () => {
    const token = await cognito.tokenFor(TELLER);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      token_use: string;
    };
    expect(claims.token_use).toBe('access');
  });

  test('a disabled user cannot answer a challenge begun before', async () => {
    const email = 'disabled-midway@example.com';
    await newStaffUser(email, 'Temp-Passw0rd!12');
    const first = challengeOf(await passwordAuth(email, 'Temp-Passw0rd!12'));
    expect(first.name).toBe('NEW_PASSWORD_REQUIRED');
    await client.send(
      new AdminDisableUserCommand({ UserPoolId: cognito.userPoolId, Username: email }),
    );
    await expect(
      respond('NEW_PASSWORD_REQUIRED', first.session, {
        USERNAME: email,
        NEW_PASSWORD: NEW_PASSWORD,
      }),
    ).rejects.toMatchObject({ name: 'NotAuthorizedException', message: 'User is disabled.' });
  });

  test('AdminInitiateAuth with a password alone is refused: the app client does not allow it', async () => {
    await expect(
      client.send(
        new AdminInitiateAuthCommand({
          UserPoolId: cognito.userPoolId,
          ClientId: cognito.clientId,
          AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
          AuthParameters: { USERNAME: TELLER, PASSWORD: DEMO_PASSWORD },
        }),
      ),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: 'Auth flow not enabled for this client',
    });
  });
});

test('the first sign-in of a new user: new password, then MFA_SETUP, the TOTP enrolled, then tokens; later sign-ins ask for the code', async () => {
  const email = 'new-teller@example.com';
  const temporary = 'Temp-Passw0rd!34';
  await newStaffUser(email, temporary);
  await expect(passwordAuth(email, 'Wrong-Temp-Passw0rd!')).rejects.toMatchObject({
    name: 'NotAuthorizedException',
  });

  const first = challengeOf(await passwordAuth(email, temporary));
  expect(first.name).toBe('NEW_PASSWORD_REQUIRED');
  // The stage's password policy: a weak new password is refused and the session stays.
  await expect(
    respond('NEW_PASSWORD_REQUIRED', first.session, { USERNAME: email, NEW_PASSWORD: 'short' }),
  ).rejects.toMatchObject({
    name: 'InvalidPasswordException',
    message: 'Password does not conform to policy: Password not long enough',
  });
  const setup = await respond('NEW_PASSWORD_REQUIRED', first.session, {
    USERNAME: email,
    NEW_PASSWORD: NEW_PASSWORD,
  });
  expect(setup.AuthenticationResult).toBeUndefined();
  expect(setup.ChallengeName).toBe('MFA_SETUP');
  expect(setup.ChallengeParameters).toMatchObject({ MFAS_CAN_SETUP: '["SOFTWARE_TOKEN_MFA"]' });

  // A password alone, now the password is set: MFA_SETUP again, never tokens.
  const again = challengeOf(await passwordAuth(email, NEW_PASSWORD));
  expect(again.name).toBe('MFA_SETUP');

  const associated = await client.send(
    new AssociateSoftwareTokenCommand({ Session: setup.Session }),
  );
  const secret = associated.SecretCode!;
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  expect(associated.Session).toEqual(expect.any(String));
  // The session the enrolment began with is spent.
  await expect(
    client.send(new AssociateSoftwareTokenCommand({ Session: setup.Session })),
  ).rejects.toMatchObject({ name: 'NotAuthorizedException' });

  const code = totpCode(secret);
  const wrong = String((Number(code) + 500_000) % 1_000_000).padStart(6, '0');
  await expect(
    client.send(new VerifySoftwareTokenCommand({ Session: associated.Session, UserCode: wrong })),
  ).rejects.toMatchObject({ name: 'EnableSoftwareTokenMFAException' });
  const verified = await client.send(
    new VerifySoftwareTokenCommand({
      Session: associated.Session,
      UserCode: code,
      FriendlyDeviceName: 'phone',
    }),
  );
  expect(verified.Status).toBe('SUCCESS');

  const signedIn = await respond('MFA_SETUP', verified.Session, { USERNAME: email });
  const tokens = signedIn.AuthenticationResult!;
  expect(tokens).toMatchObject({
    AccessToken: expect.any(String),
    RefreshToken: expect.any(String),
  });
  expect((await refresh(tokens.RefreshToken!)).AuthenticationResult?.AccessToken).toEqual(
    expect.any(String),
  );
  const user = await client.send(
    new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: email }),
  );
  expect(user).toMatchObject({
    UserStatus: 'CONFIRMED',
    UserMFASettingList: ['SOFTWARE_TOKEN_MFA'],
    PreferredMfaSetting: 'SOFTWARE_TOKEN_MFA',
  });

  const next = challengeOf(await passwordAuth(email, NEW_PASSWORD));
  expect(next).toMatchObject({
    name: 'SOFTWARE_TOKEN_MFA',
    params: { FRIENDLY_DEVICE_NAME: 'phone' },
  });
  const later = await respond('SOFTWARE_TOKEN_MFA', next.session, {
    USERNAME: email,
    SOFTWARE_TOKEN_MFA_CODE: totpCode(secret),
  });
  expect(later.AuthenticationResult?.AccessToken).toEqual(expect.any(String));
});

test("cognito-local's server answers a browser's CORS preflight for the sign-in calls, and the calls", async () => {
  const origin = 'http://127.0.0.1:3000';
  const preflight = await fetch(cognito.endpoint, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-amz-target,x-amz-user-agent',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  expect(preflight.headers.get('access-control-allow-headers')).toBe(
    'content-type,x-amz-target,x-amz-user-agent',
  );
  const call = await fetch(cognito.endpoint, {
    method: 'POST',
    headers: {
      origin,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth',
    },
    body: JSON.stringify({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: cognito.clientId,
      AuthParameters: { USERNAME: TELLER, PASSWORD: DEMO_PASSWORD },
    }),
  });
  expect(call.headers.get('access-control-allow-origin')).toBe('*');
  expect(((await call.json()) as { ChallengeName?: string }).ChallengeName).toBe(
    'SOFTWARE_TOKEN_MFA',
  );
});

test('a restart keeps each demo user’s TOTP secret, and turns MFA on in a pool that had it off', async () => {
  const secrets = { ...cognito.demoTotpSecrets };
  expect(Object.keys(secrets).sort()).toEqual(DEMO_USERS.map((u) => u.username).sort());
  const file = join(dataDir, DEMO_TOTP_FILE);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(secrets);
  expect(statSync(file).mode & 0o077).toBe(0);
  // A pool from before issue 31: MFA off.
  await client.send(
    new SetUserPoolMfaConfigCommand({ UserPoolId: cognito.userPoolId, MfaConfiguration: 'OFF' }),
  );
  await stop();
  await start();
  expect(cognito.demoTotpSecrets).toEqual(secrets);
  const pool = await client.send(new DescribeUserPoolCommand({ UserPoolId: cognito.userPoolId }));
  expect(pool.UserPool?.MfaConfiguration).toBe('ON');
  const first = challengeOf(await passwordAuth(TELLER, DEMO_PASSWORD));
  expect(first.name).toBe('SOFTWARE_TOKEN_MFA');
  const answer = await respond('SOFTWARE_TOKEN_MFA', first.session, {
    USERNAME: TELLER,
    SOFTWARE_TOKEN_MFA_CODE: totpCode(secrets[TELLER]!),
  });
  expect(answer.AuthenticationResult?.AccessToken).toEqual(expect.any(String));
}, 60_000);
