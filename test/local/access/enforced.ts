/**
 * `npm run access` (SPEC 8) against the local stack, run as a user runs it, with real tokens from
 * the local Cognito: a step that fails half-way (issue 23), the not-before time from Cognito's
 * clock, and (describe 'over HTTP') what the API then answers to the old tokens. What each verb
 * changes in Cognito and in the table: ./verbs.ts.
 */
import { rmSync } from 'node:fs';
import { CUSTOMER_READERS_GROUP } from '../../../core/groups.ts';
import { startCognitoFaultProxy } from '../../support/cognito-fault-proxy.ts';
import {
  access,
  accessState,
  command,
  dataDirVia,
  expectNotAuthorized,
  groupsOf,
  isEnabled,
  signIn,
  stack,
  staffUser,
  status,
  useAccessStack,
} from '../../support/access-stack.ts';

useAccessStack();

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
      const proxy = await startCognitoFaultProxy(stack.cognito.endpoint);
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
    // The local stack runs with the default budgets (SPEC 8): 60 customer reads per 5 minutes.
    const user = await staffUser('budget-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    for (let i = 0; i < 60; i += 1) expect(await status('/customers/1', token)).toBe(200);
    const res = await fetch(`${stack.apiUrl}/customers/1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ message: 'Too many requests', data: null });
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter >= 1 && retryAfter <= 300).toBe(true);
    expect(await status('/transactions/1', token)).toBe(200);
  });

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
