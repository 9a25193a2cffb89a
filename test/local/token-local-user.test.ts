/**
 * `npm run --silent token -- <user>` for a local staff user added with `npm run access -- add`, as
 * a new staff member runs it: after their first sign-in on the staff page (done here through the
 * Cognito API against the local endpoint, step by step as the page does), with their password
 * (TOKEN_PASSWORD, or typed on a terminal) and their authenticator app's code (--otp, or typed).
 * Before that first sign-in, and for a wrong password or code, one line on stderr that says what
 * to do, nothing on stdout, a non-zero exit, and never the password.
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { CUSTOMER_READERS_GROUP } from '../../core/groups.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { SignInSteps } from '../../sign-in/steps.ts';
import { totpCode } from '../../sign-in/totp.ts';
import {
  access,
  claims,
  cognito,
  command,
  dataDirVia,
  rig,
  status,
  useAccessRig,
} from '../support/access-rig.ts';

useAccessRig();

/** The password a new staff member chooses at their first sign-in (the pool's policy takes it). */
const CHOSEN_PASSWORD = 'Chosen-At-First-Sign-In-7!';

/** `npm run access -- add`, then the temporary password it printed. */
async function add(email: string, ...flags: string[]): Promise<string> {
  const added = await access('add', email, ...flags);
  expect(added).toMatchObject({ code: 0, stderr: '' });
  return /^Temporary password \(the first sign-in sets a new one\): (\S+)$/m.exec(
    added.stdout,
  )![1]!;
}

/**
 * The staff page's first sign-in: the temporary password, a new password, then (unless
 * `enrol` is false, a page closed half-way) the authenticator app's enrolment. Returns the
 * app's TOTP secret.
 */
async function firstSignIn(
  email: string,
  temporary: string,
  enrol = true,
): Promise<string | undefined> {
  const steps = new SignInSteps(cognito, rig.cognito.clientId, email, 'Authenticator');
  const started = await steps.password(temporary);
  if (started.kind !== 'new-password')
    throw new Error(`expected a new password, got ${started.kind}`);
  const enrolment = await steps.newPassword(started.session, CHOSEN_PASSWORD);
  if (enrolment.kind !== 'enrol') throw new Error(`expected an enrolment, got ${enrolment.kind}`);
  if (!enrol) return undefined;
  const done = await steps.enrol(enrolment.session, totpCode(enrolment.secret));
  expect(done.kind).toBe('signed-in');
  return enrolment.secret;
}

const withPassword = (password: string) => ({ env: { TOKEN_PASSWORD: password } });

/** A code of the right form that is none of those accepted now (the previous, this, the next). */
function wrongCode(secret: string): string {
  const near = [-30_000, 0, 30_000].map((d) => totpCode(secret, Date.now() + d));
  for (let n = 0; ; n += 1) {
    const code = String(n).padStart(6, '0');
    if (!near.includes(code)) return code;
  }
}

describe('a staff user who has signed in once on the staff page', () => {
  const email = 'new.reader@example.com';
  let secret: string;

  beforeAll(async () => {
    const temporary = await add(email, '--group', CUSTOMER_READERS_GROUP);
    secret = (await firstSignIn(email, temporary))!;
  });

  test('their password (TOKEN_PASSWORD) and code (--otp): only an access token, which the API takes', async () => {
    const result = await command(
      'token',
      [email, '--otp', totpCode(secret)],
      withPassword(CHOSEN_PASSWORD),
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/);
    const token = result.stdout.trim();
    expect(claims(token)).toMatchObject({
      token_use: 'access',
      client_id: rig.cognito.clientId,
      'cognito:groups': [CUSTOMER_READERS_GROUP],
    });
    expect(await status('/transactions/1', token)).toBe(200);
    expect(await status('/customers/1', token)).toBe(200);
  });

  test.each([
    [
      'a wrong code',
      () => [email, '--otp', wrongCode(secret)],
      { TOKEN_PASSWORD: CHOSEN_PASSWORD },
      'token: the code was not accepted (CodeMismatchException): codes change every 30 s\n',
    ],
    [
      'a wrong password',
      () => [email, '--otp', totpCode(secret)],
      { TOKEN_PASSWORD: 'Not-The-Passw0rd!' },
      'token: the username or password was not accepted (NotAuthorizedException)\n',
    ],
    [
      'no password and no terminal to ask on',
      () => [email, '--otp', totpCode(secret)],
      {},
      'token: set TOKEN_PASSWORD, or run on a terminal to be asked for the password\n',
    ],
    [
      'no code and no terminal to ask on',
      () => [email],
      { TOKEN_PASSWORD: CHOSEN_PASSWORD },
      'token: give --otp <code>, or run on a terminal to be asked for it\n',
    ],
    [
      '--code, which only the demo users have',
      () => ['--code', email],
      {},
      'token: --code is for the local demo users (teller@example.com, compliance@example.com): ' +
        `"${email}"'s codes are on their authenticator app\n`,
    ],
  ])(
    '%s: one line on stderr, nothing on stdout, a non-zero exit, no password',
    async (_name, args, env, message) => {
      const result = await command('token', args(), { env });
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(message);
      expect(result.stderr).not.toContain('Passw0rd');
      expect(result.stderr).not.toContain(CHOSEN_PASSWORD);
    },
  );
});

describe('before the first sign-in is finished: says so, and where to finish it', () => {
  test('never signed in: refused before any password is asked for, naming the staff page', async () => {
    const email = 'not.yet@example.com';
    const temporary = await add(email);
    const expected =
      `token: "${email}" has not signed in yet, so has no password of their own and no ` +
      `authenticator app: sign in once on the staff page (${rig.apiUrl}/app/) with the ` +
      'temporary password `npm run access -- add` printed, set a password and enrol an ' +
      'authenticator app, then run this again\n';
    for (const [args, env] of [
      [[email], {}],
      [[email, '--otp', '123456'], { TOKEN_PASSWORD: temporary }],
    ] as const) {
      const result = await command('token', args, { env });
      expect(result).toEqual({ code: 1, stdout: '', stderr: expected });
    }
  });

  test('a password set, the authenticator app not enrolled: refused, naming the staff page', async () => {
    const email = 'half.way@example.com';
    await firstSignIn(email, await add(email), false);
    const result = await command(
      'token',
      [email, '--otp', '123456'],
      withPassword(CHOSEN_PASSWORD),
    );
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `token: "${email}" has set a password but has not enrolled an authenticator app yet: ` +
        `sign in once more on the staff page (${rig.apiUrl}/app/) to enrol one, then run this again\n`,
    });
  });

  test('an unknown user: says so, the demo users, and how to add one', async () => {
    const result = await command('token', ['nobody@example.com'], withPassword(CHOSEN_PASSWORD));
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'token: unknown user "nobody@example.com": no such user in the local rig; the local ' +
        'demo users are teller@example.com, compliance@example.com, and ' +
        '`npm run access -- add <e-mail>` adds a staff user\n',
    });
  });
});

describe('the demo users, as before', () => {
  test('a token without a password or code; --otp refused, their codes being computed', async () => {
    const teller = await command('token', ['teller@example.com']);
    expect(teller.code).toBe(0);
    expect(await status('/transactions/1', teller.stdout.trim())).toBe(200);
    const refused = await command('token', ['teller@example.com', '--otp', '123456']);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'token: --otp is for a user with an authenticator app of their own: the codes of ' +
        '"teller@example.com", a local demo user, are computed\n',
    });
  });
});

// A terminal for the command, as a person at one has: util-linux's `script` gives it a pty.
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('SKIPPED the typed password test: no `script` (util-linux) here');

(hasScript ? test : test.skip)(
  'on a terminal: the password asked without echo, then the code, then the token',
  async () => {
    const email = 'at.a.terminal@example.com';
    const secret = (await firstSignIn(email, await add(email)))!;
    const env: NodeJS.ProcessEnv = { ...process.env, SHELL: '/bin/sh' };
    for (const name of ['NODE_OPTIONS', 'TOKEN_PASSWORD']) delete env[name];
    // The rig's state.json, copied: this test's rig, found as `npm run token` finds one.
    const dataDir = dataDirVia(rig.cognito.endpoint);
    env.LOCAL_DATA_DIR = dataDir;
    const child = spawn(
      'script',
      ['-qfec', `'${process.execPath}' bin/token.ts ${email}`, '/dev/null'],
      { cwd: PROJECT_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'], timeout: 60_000 },
    );
    let screen = '';
    const typed = new Set<string>();
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      // Each answer typed once its question is on the screen (the terminal then in raw mode).
      if (screen.includes(`Password for ${email}: `) && !typed.has('password')) {
        typed.add('password');
        child.stdin.write(`${CHOSEN_PASSWORD}\r`);
      }
      if (screen.includes('TOTP code from your authenticator app: ') && !typed.has('code')) {
        typed.add('code');
        child.stdin.write(`${totpCode(secret)}\r`);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    rmSync(dataDir, { recursive: true, force: true });
    expect(code).toBe(0);
    expect([...typed]).toEqual(['password', 'code']);
    expect(screen).not.toContain(CHOSEN_PASSWORD);
    const token = /([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\s*$/.exec(screen)?.[1];
    expect(token).toBeDefined();
    expect(await status('/transactions/1', token!)).toBe(200);
  },
);
