/**
 * The staff page: sign in (password, TOTP, first-sign-in enrolment), look up a transaction or a
 * customer with the typed client, sign out. Tokens live in this module's variables only: never
 * in web storage, cookies or the address bar, so closing or reloading the tab forgets them.
 * Nothing of a record is logged or put in the URL; forms are handled here and never submitted.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../client/openapi-types.ts';
import type { StaffAppConfig } from './config.ts';
import { CONFIG_FILE } from './config.ts';
import { refusalFor, type RecordKind } from './error-words.ts';
import { drawQr, otpauthUri } from './qr.ts';
import { customerView, transactionView } from './render.ts';
import type { SignInSteps } from '../sign-in/steps.ts';
import { pageSignIn, revokeRefreshToken, type Step, type Tokens } from './sign-in.ts';

const SCREENS = ['sign-in', 'new-password', 'enrol', 'code', 'lookup', 'signed-out'] as const;
type Screen = (typeof SCREENS)[number];

let config: StaffAppConfig;
let signIn: SignInSteps | undefined;
let session = '';
let tokens: Tokens | undefined;
let api: ReturnType<typeof createClient<paths>>;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function show(screen: Screen, notice?: string): void {
  for (const name of SCREENS) byId(`screen-${name}`).hidden = name !== screen;
  byId('sign-out').hidden = screen !== 'lookup';
  const note = byId('notice');
  note.textContent = notice ?? '';
  note.hidden = !notice;
  const first = byId(`screen-${screen}`).querySelector('input');
  first?.focus();
}

/** Cognito's refusals in words; the exception's name tells which. */
function signInWords(error: unknown): string {
  const { name, message } = error as { name?: string; message?: string };
  // Cognito's words for a sign-in session past its 3 minutes, or already used.
  if (name === 'NotAuthorizedException' && /session/i.test(message ?? ''))
    return 'The sign-in took too long and has expired: start again.';
  switch (name) {
    case 'NotAuthorizedException':
    case 'UserNotFoundException':
      return 'The e-mail or password is not right, or the account is disabled.';
    case 'CodeMismatchException':
    case 'EnableSoftwareTokenMFAException':
      return 'That code was not accepted: codes change every 30 seconds; try the current one.';
    case 'ExpiredCodeException':
      return 'That code was already used: wait for the next one.';
    case 'InvalidPasswordException':
      return 'That password does not meet the rules: at least 12 characters, with upper and lower case letters, a digit and a symbol.';
    case 'PasswordResetRequiredException':
      return 'Your password must be reset: ask an administrator.';
    case 'TooManyRequestsException':
    case 'LimitExceededException':
      return 'Too many attempts: wait a few minutes and try again.';
    default:
      return 'Sign-in failed: start again. If it keeps failing, tell an administrator.';
  }
}

function enter(step: Step): void {
  if (step.kind === 'signed-in') {
    tokens = step.tokens;
    session = '';
    byId('result').replaceChildren();
    byId('lookup-error').hidden = true;
    return show('lookup');
  }
  session = step.session;
  if (step.kind === 'enrol') {
    const account = signIn?.username ?? '';
    drawQr(byId<HTMLCanvasElement>('enrol-qr'), otpauthUri(config.issuer, account, step.secret));
    byId('enrol-secret').textContent = step.secret;
  }
  show(step.kind);
}

/** The screen on which a refused code may be typed again, if it was a code that was refused. */
function retryScreen(formId: string, error: unknown): Screen | undefined {
  const name = (error as { name?: string }).name;
  if (name !== 'CodeMismatchException' && name !== 'EnableSoftwareTokenMFAException') return;
  if (formId === 'enrol-form') return 'enrol';
  if (formId === 'code-form') return 'code';
  return undefined;
}

/** Runs a sign-in step from a form; a refusal starts the sign-in again with the reason. */
function onSubmit(formId: string, action: (form: FormData) => Promise<Step>): void {
  const form = byId<HTMLFormElement>(formId);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    // Secrets go at once; the e-mail stays, so that a wrong password is typed again alone.
    for (const input of form.querySelectorAll('input'))
      if (input.name !== 'username') input.value = '';
    action(data).then(enter, (error: unknown) => {
      // A wrong code may be tried again in the same session; anything else starts over.
      const again = retryScreen(formId, error);
      show(again ?? 'sign-in', signInWords(error));
    });
  });
}

function signedOut(notice?: string): void {
  tokens = undefined;
  signIn = undefined;
  session = '';
  byId('result').replaceChildren();
  show('sign-in', notice);
}

/** The access token if it is still valid for a minute; an expired one means signing in again. */
function accessToken(): string | undefined {
  if (!tokens) return undefined;
  const payload = tokens.accessToken.split('.')[1] ?? '';
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as {
      exp?: number;
    };
    if (typeof claims.exp === 'number' && claims.exp * 1000 - 60_000 > Date.now())
      return tokens.accessToken;
  } catch {
    // Not a JWT we can read: let the API decide.
    return tokens.accessToken;
  }
  return undefined;
}

async function lookUp(kind: RecordKind, id: string): Promise<void> {
  const result = byId('result');
  const errorBox = byId('lookup-error');
  result.replaceChildren();
  errorBox.hidden = true;
  const token = accessToken();
  if (!token) return signedOut('Your session has ended: sign in again.');
  const headers = { authorization: `Bearer ${token}` };
  const answer =
    kind === 'transaction'
      ? await api.GET('/transactions/{transaction_id}', {
          params: { path: { transaction_id: id } },
          headers,
        })
      : await api.GET('/customers/{customer_id}', {
          params: { path: { customer_id: id } },
          headers,
        });
  if (answer.data && 'data' in answer.data) {
    const record = answer.data.data;
    result.replaceChildren(
      kind === 'transaction'
        ? transactionView(record as Parameters<typeof transactionView>[0], config)
        : customerView(record as Parameters<typeof customerView>[0], config),
    );
    return;
  }
  const refusal = refusalFor(
    answer.response.status,
    kind,
    answer.response.headers.get('retry-after'),
  );
  if (refusal.signInAgain) return signedOut(refusal.words);
  errorBox.textContent = refusal.words;
  errorBox.hidden = false;
}

function onLookup(formId: string, kind: RecordKind): void {
  const form = byId<HTMLFormElement>(formId);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = String(new FormData(form).get('id') ?? '').trim();
    lookUp(kind, id).catch(() => {
      const errorBox = byId('lookup-error');
      errorBox.textContent =
        'The service could not be reached. Check the connection and try again.';
      errorBox.hidden = false;
    });
  });
}

async function signOut(): Promise<void> {
  const refreshToken = tokens?.refreshToken;
  tokens = undefined;
  byId('result').replaceChildren();
  try {
    if (refreshToken) await revokeRefreshToken(config, refreshToken);
    show('signed-out');
  } catch {
    show(
      'signed-out',
      'You are signed out on this page, but the sign-in service could not be reached to end your sign-in everywhere: ask an administrator to end it.',
    );
  }
}

async function start(): Promise<void> {
  const response = await fetch(CONFIG_FILE, { cache: 'no-store' });
  config = (await response.json()) as StaffAppConfig;
  api = createClient<paths>({ baseUrl: config.apiUrl });
  onSubmit('sign-in-form', (form) => {
    signIn = pageSignIn(config, String(form.get('username') ?? '').trim());
    return signIn.password(String(form.get('password') ?? ''));
  });
  onSubmit('new-password-form', (form) =>
    signIn!.newPassword(session, String(form.get('password'))),
  );
  onSubmit('enrol-form', (form) => signIn!.enrol(session, String(form.get('code'))));
  onSubmit('code-form', (form) => signIn!.code(session, String(form.get('code'))));
  onLookup('transaction-form', 'transaction');
  onLookup('customer-form', 'customer');
  byId('sign-out').addEventListener('click', () => void signOut());
  byId('sign-in-again').addEventListener('click', () => signedOut());
  show('sign-in');
}

start().catch(() => show('sign-in', 'The page could not load its settings: reload it.'));
