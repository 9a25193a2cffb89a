/**
 * `npm run access` (SPEC 8) against the local rig, run as a user runs it, with real tokens from
 * the local Cognito: what each verb changes in Cognito and in the table, that an unknown user
 * changes nothing, usage errors, and `npm run token` for an offboarded user. When a step fails,
 * whose clock sets nbf, and what the API then answers: below.
 */
import {
  AdminGetUserCommand,
  InitiateAuthCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { CUSTOMER_READERS_GROUP } from '../../core/groups.ts';
import { DEFAULT_READ_BUDGETS } from '../../core/read-budgets.ts';
import {
  access,
  accessState,
  claims,
  cognito,
  command,
  expectNotAuthorized,
  groupsOf,
  isEnabled,
  refresh,
  signIn,
  snapshot,
  rig,
  staffUser,
  useAccessRig,
  dataDirVia,
  status,
} from '../support/access-rig.ts';
import { rmSync } from 'node:fs';
import { startCognitoFaultProxy } from '../support/cognito-fault-proxy.ts';

useAccessRig();

describe('in Cognito and in the table', () => {
  test('the local access token carries sub, iat, username, token_use and cognito:groups', async () => {
    const user = await staffUser('claims-check@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(claims(token)).toMatchObject({
      sub: user.sub,
      username: user.username,
      token_use: 'access',
      'cognito:groups': [CUSTOMER_READERS_GROUP],
      iat: expect.any(Number),
    });
    expect(Number.isInteger(claims(token).iat)).toBe(true);
  });

  test('revoke: refresh tokens revoked, nbf after every token held, and a new sign-in works', async () => {
    const user = await staffUser('revoke-cli@example.com', [CUSTOMER_READERS_GROUP]);
    const before = await signIn(user.email);
    expect(await refresh(before.refresh)).toEqual(expect.any(String)); // it did work

    const result = await access('revoke', user.email);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    // Issue 30: the user by e-mail address (the local pool's usernames are UUIDs), the sub
    // beside it, and the table's line once, with the instant that stands.
    expect(user.username).not.toBe(user.email);
    expect(result.stdout).toContain(`revoke: user ${user.email} (sub ${user.sub})`);
    expect(result.stdout.match(/^Table: /gm)).toHaveLength(1);
    expect(result.stdout).toContain('AdminUserGlobalSignOut');
    expect(result.stdout).not.toContain(before.access);
    expect(result.stdout).not.toContain(before.refresh);

    const state = await accessState(user.sub);
    const nbf = state!.nbf!;
    expect(nbf).toBeGreaterThanOrEqual(before.iat + 1);
    expect(state!['nbf:customer-readers']).toBeUndefined();
    // The command returned only once the clock reached nbf.
    expect(Date.now()).toBeGreaterThanOrEqual(nbf * 1000);
    await expectNotAuthorized(refresh(before.refresh));

    const after = await signIn(user.email);
    expect(after.iat).toBeGreaterThanOrEqual(nbf);
    expect(await refresh(after.refresh)).toEqual(expect.any(String));
    expect(await groupsOf(user.username)).toEqual([CUSTOMER_READERS_GROUP]);
  });

  test('revoke by Cognito username works the same', async () => {
    const user = await staffUser('revoke-by-username@example.com');
    const before = await signIn(user.email);
    const result = await access('revoke', user.username);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`revoke: user ${user.email} (sub ${user.sub})`);
    expect((await accessState(user.sub))!.nbf).toBeGreaterThan(before.iat);
  });

  test('offboard: disabled, sign-in and refresh fail, nbf after every token held', async () => {
    const user = await staffUser('offboard-cli@example.com', [CUSTOMER_READERS_GROUP]);
    const before = await signIn(user.email);

    const result = await access('offboard', user.email);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('AdminDisableUser');
    expect(result.stdout).toContain('AdminUserGlobalSignOut');
    expect(result.stdout.match(/^Table: /gm)).toHaveLength(1);

    const got = await cognito.send(
      new AdminGetUserCommand({ UserPoolId: rig.cognito.userPoolId, Username: user.username }),
    );
    expect(got.Enabled).toBe(false);
    await expectNotAuthorized(signIn(user.email));
    await expectNotAuthorized(refresh(before.refresh));
    expect((await accessState(user.sub))!.nbf).toBeGreaterThanOrEqual(before.iat + 1);
  });

  test('remove-group: out of the group, nbf:customer-readers after every token held, refresh tokens kept', async () => {
    const user = await staffUser('remove-group-cli@example.com', [CUSTOMER_READERS_GROUP]);
    const before = await signIn(user.email);

    const result = await access('remove-group', user.email, CUSTOMER_READERS_GROUP);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('AdminRemoveUserFromGroup');
    expect(result.stdout.match(/^Table: /gm)).toHaveLength(1);

    expect(await groupsOf(user.username)).toEqual([]);
    const state = await accessState(user.sub);
    expect(state!['nbf:customer-readers']).toBeGreaterThanOrEqual(before.iat + 1);
    expect(state!.nbf).toBeUndefined();
    // Their transaction reads go on: the refresh token still works, and mints tokens without the group.
    const refreshed = await refresh(before.refresh);
    expect(claims(refreshed)['cognito:groups']).toBeUndefined();
  });

  test('an unknown user: a non-zero exit, a message, and nothing changed in Cognito or the table', async () => {
    await staffUser('bystander@example.com', [CUSTOMER_READERS_GROUP]);
    const before = await snapshot();
    for (const args of [
      ['revoke', 'nobody@example.com'],
      ['offboard', 'nobody@example.com'],
      ['remove-group', 'nobody@example.com', CUSTOMER_READERS_GROUP],
      ['enable', 'nobody@example.com'],
      ['add-group', 'nobody@example.com', CUSTOMER_READERS_GROUP],
      ['revoke', '00000000-0000-4000-8000-000000000000'],
    ]) {
      const result = await access(...args);
      expect([args, result.code]).toEqual([args, 1]);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^access: No such user in user pool .*nothing was changed\n$/);
    }
    for (const verb of ['remove-group', 'add-group']) {
      const unknownGroup = await access(verb, 'bystander@example.com', 'no-such-group');
      expect(unknownGroup.code).toBe(1);
      expect(unknownGroup.stderr).toContain('No group no-such-group');
    }
    expect(await snapshot()).toEqual(before);
  });

  test.each([
    [[]],
    [['revoke']],
    [['suspend', 'x@example.com']],
    [['revoke', 'x@example.com', 'extra']],
    [['remove-group', 'x@example.com']],
    [['add-group', 'x@example.com']],
    [['enable', 'x@example.com', 'extra']],
  ])('usage errors exit 2: %j', async (args) => {
    const result = await access(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage: npm run access --');
  });

  test('a bad verb: named in one line, then the usage, no stack trace', async () => {
    const result = await access('suspend', 'x@example.com');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const [first, ...usage] = result.stderr.trimEnd().split('\n');
    expect(first).toBe('access: unknown verb "suspend"');
    expect(usage[0]).toBe('usage: npm run access -- add <e-mail> [--group <group>]');
    expect(usage.join('\n')).toContain('enable <user>');
    expect(usage.join('\n')).toContain('add-group <user> <group>');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  test('enable: an offboarded user may sign in again; nbf moves past the enable, so no token from before it comes back', async () => {
    const user = await staffUser('enable-cli@example.com');
    expect((await access('offboard', user.email)).code).toBe(0);
    const voided = await accessState(user.sub);

    const result = await access('enable', user.email);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`enable: user ${user.email} (sub ${user.sub})`);
    expect(result.stdout).toContain('AdminEnableUser');
    expect(await isEnabled(user.username)).toBe(true);
    const after = await accessState(user.sub);
    expect(after!.nbf!).toBeGreaterThan(voided!.nbf!);
    expect((await signIn(user.email)).iat).toBeGreaterThanOrEqual(after!.nbf!);
    // Again: nothing left to do, and it says so.
    expect((await access('enable', user.email)).stdout).toContain('already enabled');
  });

  test('add-group: back in the group; nbf:customer-readers is left as it was', async () => {
    const user = await staffUser('add-group-cli@example.com', [CUSTOMER_READERS_GROUP]);
    expect((await access('remove-group', user.email, CUSTOMER_READERS_GROUP)).code).toBe(0);
    const voided = await accessState(user.sub);

    const result = await access('add-group', user.email, CUSTOMER_READERS_GROUP);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('AdminAddUserToGroup');
    expect(await groupsOf(user.username)).toEqual([CUSTOMER_READERS_GROUP]);
    expect(await accessState(user.sub)).toEqual(voided);
    expect((await access('add-group', user.email, CUSTOMER_READERS_GROUP)).stdout).toContain(
      `already in ${CUSTOMER_READERS_GROUP}`,
    );
  });

  test('npm run token for an offboarded demo user: says they are disabled and how to enable them', async () => {
    const teller = 'teller@example.com';
    expect((await command('token', [teller])).code).toBe(0);
    expect((await access('offboard', teller)).code).toBe(0);

    const refused = await command('token', [teller]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`"${teller}" is disabled`);
    expect(refused.stderr).toContain(`npm run access -- enable ${teller}`);
    expect(refused.stderr).not.toContain('unknown user');

    expect((await access('enable', teller)).code).toBe(0);
    const token = await command('token', [teller]);
    expect(token.code).toBe(0);
    expect(claims(token.stdout.trim()).iat).toEqual(expect.any(Number));
  });
});

describe('add: a staff user by one command', () => {
  /** The first sign-in's answer: Cognito asks for a new password before anything else. */
  const firstSignIn = (email: string, password: string) =>
    cognito.send(
      new InitiateAuthCommand({
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: rig.cognito.clientId,
        AuthParameters: { USERNAME: email, PASSWORD: password },
      }),
    );

  test('locally: created, the temporary password printed, in the group; the first sign-in sets a password', async () => {
    const email = 'added.reader@example.com';
    const result = await access('add', email, '--group', CUSTOMER_READERS_GROUP);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`add: user ${email} created in the local rig`);
    expect(result.stdout).toContain(`added to group ${CUSTOMER_READERS_GROUP}`);
    const password = /^Temporary password \(the first sign-in sets a new one\): (\S+)$/m.exec(
      result.stdout,
    )![1]!;
    expect(password.length).toBeGreaterThanOrEqual(12);
    const { Username } = await cognito.send(
      new AdminGetUserCommand({ UserPoolId: rig.cognito.userPoolId, Username: email }),
    );
    expect(await groupsOf(Username!)).toEqual([CUSTOMER_READERS_GROUP]);
    expect((await firstSignIn(email, password)).ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
  });

  test('an existing user, an unknown group or no e-mail address: refused, nothing changed', async () => {
    const user = await staffUser('already.here@example.com');
    const before = await snapshot();
    for (const [args, message] of [
      [[user.email], `${user.email} is already a user of user pool`],
      [
        ['new.person@example.com', '--group', 'no-such-group'],
        'No group no-such-group in user pool',
      ],
      [['not-an-address'], '"not-an-address" is not an e-mail address'],
    ] as const) {
      const result = await access('add', ...args);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('nothing was changed');
    }
    expect(await snapshot()).toEqual(before);
    expect((await access('add', 'x@example.com', '--grup', 'g')).code).toBe(2);
  });

  test('in a stage: through the user pool API, Cognito e-mails the temporary password', async () => {
    const email = 'stage.teller@example.com';
    const result = await command('access', ['add', email], {
      env: {
        USER_POOL_ID: rig.cognito.userPoolId,
        TABLE_NAME: rig.tableName,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        // The SDK's own setting for a service's endpoint: the stage path, against the local pool.
        AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: rig.cognito.endpoint,
        DYNAMODB_ENDPOINT: rig.dynamoDbEndpoint,
      },
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      `add: user ${email} created in user pool ${rig.cognito.userPoolId}`,
    );
    expect(result.stdout).toContain('the temporary password was e-mailed to that address');
    expect(result.stdout).not.toContain('Temporary password');
    const user = await cognito.send(
      new AdminGetUserCommand({ UserPoolId: rig.cognito.userPoolId, Username: email }),
    );
    expect(user.UserStatus).toBe('FORCE_CHANGE_PASSWORD');
  });
});

/**
 * `npm run access` (SPEC 8) against the local rig, run as a user runs it, with real tokens from
 * the local Cognito: a step that fails half-way (issue 23), the not-before time from Cognito's
 * clock, and (describe 'over HTTP') what the API then answers to the old tokens. What each verb
 * changes in Cognito and in the table: above.
 */

/**
 * Issue 23: the table first, then Cognito, each step safe to repeat; against a Cognito that
 * refuses calls for a disabled user (the local one does, as AWS does) or a call of our choice.
 */
describe('when a step fails half-way', () => {
  test('offboard of a user already disabled: the refused sign-out is reported, and it ends OK', async () => {
    const user = await staffUser('offboard-twice@example.com');
    const before = await signIn(user.email);
    expect((await access('offboard', user.email)).code).toBe(0);

    const again = await access('offboard', user.email);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toContain('global sign-out refused, the user is already disabled');
    expect(again.stdout).toContain('user was already disabled');
    expect((await accessState(user.sub))!.nbf).toBeGreaterThanOrEqual(before.iat + 1);
  });

  test('revoke of a disabled user: the refused sign-out is reported, and it ends OK (a re-run does not fail for ever)', async () => {
    const user = await staffUser('revoke-disabled@example.com');
    const before = await signIn(user.email);
    expect((await access('offboard', user.email)).code).toBe(0);

    const revoked = await access('revoke', user.email);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.stdout).toContain('global sign-out refused, the user is already disabled');
    expect((await accessState(user.sub))!.nbf).toBeGreaterThanOrEqual(before.iat + 1);
  });

  test.each([
    ['offboard', 'AdminDisableUser', [] as string[]],
    ['offboard', 'AdminUserGlobalSignOut', []],
    ['remove-group', 'AdminRemoveUserFromGroup', [CUSTOMER_READERS_GROUP]],
  ])(
    '%s with %s refused: old tokens already refused, what was and was not done printed, exit 1; a re-run completes it',
    async (verb, operation, extra) => {
      const proxy = await startCognitoFaultProxy(rig.cognito.endpoint);
      const via = dataDirVia(proxy.endpoint);
      try {
        const user = await staffUser(`half-${operation.toLowerCase()}@example.com`, [
          CUSTOMER_READERS_GROUP,
        ]);
        const { access: token } = await signIn(user.email);
        expect(await status('/customers/1', token)).toBe(200);

        proxy.refuse([operation]);
        const failed = await command('access', [verb, user.email, ...extra], { dataDir: via });
        expect(failed.code).toBe(1);
        expect(failed.stdout).toMatch(/^Table: Tokens .*issued before .* are refused/m);
        expect(failed.stderr).toContain(`(${operation}) failed: TooManyRequestsException`);
        expect(failed.stderr).toMatch(/^access: not done: Table: nbf.* moved past/m);
        expect(failed.stderr).toContain('Run the same command again');
        expect(failed.stderr).not.toMatch(/^\s+at /m);
        // The security-critical step is done: the token held before answers no more.
        expect(await status('/customers/1', token)).toBe(verb === 'offboard' ? 401 : 403);

        proxy.refuse([]);
        const rerun = await command('access', [verb, user.email, ...extra], { dataDir: via });
        expect(rerun).toMatchObject({ code: 0, stderr: '' });
        expect(rerun.stdout).toContain(operation);
        if (verb === 'offboard') {
          expect(await isEnabled(user.username)).toBe(false);
          await expectNotAuthorized(signIn(user.email));
        } else {
          expect(await groupsOf(user.username)).toEqual([]);
        }
      } finally {
        await proxy.stop();
        rmSync(via, { recursive: true, force: true });
      }
    },
    30_000,
  );
});

/** Issue 23: nbf from Cognito's clock (its answers' Date), not from the operator's machine. */
describe("the not-before time is Cognito's", () => {
  test.each([
    ['behind', -30_000],
    ['ahead', 30_000],
  ])(
    "the machine's clock 30 s %s: tokens held are void, a sign-in right after works, no wait",
    async (name, skew) => {
      const user = await staffUser(`clock-${name}@example.com`);
      const before = await signIn(user.email);
      const started = performance.now();
      const result = await command('access', ['revoke', user.email], { clockSkewMs: skew });
      const elapsed = performance.now() - started;
      expect(result).toMatchObject({ code: 0, stderr: '' });

      const nbf = (await accessState(user.sub))!.nbf!;
      expect(nbf).toBeGreaterThanOrEqual(before.iat + 1);
      // Cognito's second (this machine's: cognito-local runs here), not the skewed one.
      expect(nbf).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect((await signIn(user.email)).iat).toBeGreaterThanOrEqual(nbf);
      // It waited for at most a second of Cognito's clock, not for the skew.
      expect(elapsed).toBeLessThan(15_000);
    },
    60_000,
  );
});

/**
 * What the API answers once the command has run (SPEC 8: from the next request). These need the
 * functions to read the access state on each GET.
 */
describe('over HTTP', () => {
  test('revoke: the token that read gets 401 on both routes; a new sign-in reads again', async () => {
    const user = await staffUser('revoke-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(await status('/transactions/1', token)).toBe(200);
    expect(await status('/customers/1', token)).toBe(200);

    expect((await access('revoke', user.email)).code).toBe(0);
    expect(await status('/transactions/1', token)).toBe(401);
    expect(await status('/customers/1', token)).toBe(401);

    const { access: fresh } = await signIn(user.email);
    expect(await status('/transactions/1', fresh)).toBe(200);
    expect(await status('/customers/1', fresh)).toBe(200);
  });

  test('offboard: sign-in fails and the old tokens get 401 on both routes', async () => {
    const user = await staffUser('offboard-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(await status('/transactions/1', token)).toBe(200);

    expect((await access('offboard', user.email)).code).toBe(0);
    await expectNotAuthorized(signIn(user.email));
    expect(await status('/transactions/1', token)).toBe(401);
    expect(await status('/customers/1', token)).toBe(401);
  });

  test('remove-group: the old token gets 403 on customers; its transaction reads go on', async () => {
    const user = await staffUser('remove-group-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(await status('/customers/1', token)).toBe(200);

    expect((await access('remove-group', user.email, CUSTOMER_READERS_GROUP)).code).toBe(0);
    expect(await status('/customers/1', token)).toBe(403);
    expect(await status('/transactions/1', token)).toBe(200);
  });

  test('a read budget met over HTTP: the next read is a 429 with Retry-After; the other route reads on', async () => {
    // The local rig runs with the default budgets (SPEC 8): 60 customer reads per 5 minutes.
    const user = await staffUser('budget-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    // Windows start at multiples of their length (epoch seconds): the 60 reads must fall in one,
    // which a busy machine might not manage in its last two minutes.
    const windowMs = DEFAULT_READ_BUDGETS.windowSeconds * 1000;
    const left = windowMs - (Date.now() % windowMs);
    if (left < 120_000) await new Promise((resolve) => setTimeout(resolve, left + 1000));
    for (let i = 0; i < DEFAULT_READ_BUDGETS.customers; i += 1)
      expect(await status('/customers/1', token)).toBe(200);
    const res = await fetch(`${rig.apiUrl}/customers/1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ message: 'Too many requests', data: null });
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter >= 1 && retryAfter <= 300).toBe(true);
    expect(await status('/transactions/1', token)).toBe(200);
  }, 240_000);

  test('npm run audit: who read a customer, a transaction; what a user read (by e-mail or username)', async () => {
    const user = await staffUser('audited-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(await status('/customers/1', token)).toBe(200);
    expect(await status('/transactions/2', token)).toBe(200);
    expect(await status('/customers/007', token)).toBe(400);

    const lines = async (...args: string[]) => {
      const result = await command('audit', args);
      expect(result.code).toBe(0);
      return result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    };
    const mine = (events: Record<string, unknown>[]) => events.filter((e) => e.sub === user.sub);
    expect(mine(await lines('customer', '1')).map((e) => [e.route, e.status])).toEqual([
      ['GET /customers/{customer_id}', 200],
    ]);
    expect(mine(await lines('transaction', '2')).map((e) => e.recordId)).toEqual(['2']);
    for (const name of [user.email, user.username]) {
      const events = await lines('user', name);
      expect(events.map((e) => [e.entity, e.recordId, e.status])).toEqual([
        ['customer', '1', 200],
        ['transaction', '2', 200],
        ['customer', null, 400],
      ]);
      expect(events.every((e) => e.sub === user.sub && e.username === user.username)).toBe(true);
    }
    expect((await command('audit', ['customer', '007'])).code).not.toBe(0);
  });
});
