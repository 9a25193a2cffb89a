/**
 * The staff page: sign in (password, TOTP, first-sign-in enrolment), search by what staff hold
 * (SPEC 10: search.ts says what the field finds) or look up a transaction or a customer by id,
 * with the typed client, sign out. Tokens live in this module's variables only: never in web
 * storage, cookies or the address bar, so closing or reloading the tab forgets them. Nothing of
 * a record or a search is logged or put in the URL; forms are handled here and never submitted,
 * and the search field keeps no history (autocomplete off: a TIN or a name is personal data).
 */
import createClient from 'openapi-fetch';
import type { paths } from '../client/openapi-types.ts';
import { claimsOf, mayReadCustomers, signedInAs } from './claims.ts';
import type { StaffAppConfig } from './config.ts';
import { CONFIG_FILE } from './config.ts';
import { listRefusalFor, refusalFor, type ListKind, type RecordKind } from './error-words.ts';
import { drawQr, otpauthUri } from './qr.ts';
import { customerView, transactionView } from './render.ts';
import {
  CUSTOMER_HEADS,
  CUSTOMER_TRANSACTION_HEADS,
  TRANSACTION_HEADS,
  customerRow,
  customerTransactionRow,
  pagedList,
  silence,
  transactionRow,
  type CustomerSummary,
  type PageAnswer,
  type TransactionSummary,
} from './results.ts';
import { isHeld, parseSearch, type Held, type Search } from './search.ts';
import { printedTime } from './times.ts';
import type { SignInSteps } from '../sign-in/steps.ts';
import { pageSignIn, revokeRefreshToken, type Step, type Tokens } from './sign-in.ts';

const SCREENS = ['sign-in', 'new-password', 'enrol', 'code', 'lookup', 'signed-out'] as const;
type Screen = (typeof SCREENS)[number];

let config: StaffAppConfig;
let signIn: SignInSteps | undefined;
let session = '';
let tokens: Tokens | undefined;
let api: ReturnType<typeof createClient<paths>>;
/** From the access token: whether to offer customer searches (the API decides). */
let readsCustomers = false;
/** Who is signed in, as a printed record names them. */
let who = '';

/** Summaries a page of results holds (SPEC 10's default): each is a read of the user's budget. */
const PAGE_SIZE = '10';
const UNREACHABLE = 'The service could not be reached. Check the connection and try again.';

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

/** Forgets every search, result and record shown: they are personal data. */
function clearLookups(): void {
  byId<HTMLInputElement>('search-value').value = '';
  byId('search-value').removeAttribute('aria-invalid');
  byId('search-results').replaceChildren();
  silence(byId('search-status'));
  byId('result').replaceChildren();
  for (const id of ['search-error', 'lookup-error']) hideError(byId(id));
}

function enter(step: Step): void {
  if (step.kind === 'signed-in') {
    tokens = step.tokens;
    session = '';
    const access = claimsOf(tokens.accessToken);
    readsCustomers = mayReadCustomers(access);
    who = signedInAs(claimsOf(tokens.idToken), access, signIn?.username ?? '');
    clearLookups();
    byId('search-held').hidden = !readsCustomers;
    byId<HTMLInputElement>('search-held-default').checked = true;
    describeSearch();
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
  clearLookups();
  show('sign-in', notice);
}

/** The access token if it is still valid for a minute; an expired one means signing in again. */
function accessToken(): string | undefined {
  if (!tokens) return undefined;
  const claims = claimsOf(tokens.accessToken);
  // Not a JWT we can read: let the API decide.
  if (!claims) return tokens.accessToken;
  const { exp } = claims;
  if (typeof exp === 'number' && exp * 1000 - 60_000 > Date.now()) return tokens.accessToken;
  return undefined;
}

function showError(box: HTMLElement, words: string): void {
  box.textContent = words;
  box.hidden = false;
}

function hideError(box: HTMLElement): void {
  box.textContent = '';
  box.hidden = true;
}

/** How a record is opened: from the id forms, or from a list (which it may go back to). */
interface Opening {
  /** Where a refusal is said. */
  readonly errorBox: HTMLElement;
  /** Move the focus to the record once shown (it was opened from a list, above or in a record). */
  readonly focus?: boolean;
  /** The customer whose list opened this transaction: a button goes back to it, as it was. */
  readonly back?: { readonly view: HTMLElement; readonly from: HTMLElement };
}

async function lookUp(
  kind: RecordKind,
  id: string,
  opening: Opening = { errorBox: byId('lookup-error') },
): Promise<void> {
  const result = byId('result');
  const { errorBox } = opening;
  hideError(errorBox);
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
    const view =
      kind === 'transaction'
        ? transactionView(record as Parameters<typeof transactionView>[0], config)
        : customerView(record as Parameters<typeof customerView>[0], config, who);
    if (kind === 'customer') customerTransactions(id, view);
    if (opening.back) view.prepend(backButton(opening.back));
    result.replaceChildren(view);
    if (opening.focus) view.querySelector<HTMLElement>('h3')?.focus();
    return;
  }
  const refusal = refusalFor(
    answer.response.status,
    kind,
    answer.response.headers.get('retry-after'),
  );
  if (refusal.signInAgain) return signedOut(refusal.words);
  showError(errorBox, refusal.words);
}

/** Back from a transaction to the customer page that listed it, as it was left: no second read. */
function backButton(back: NonNullable<Opening['back']>): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'back';
  button.textContent = 'Back to the customer';
  button.addEventListener('click', () => {
    byId('result').replaceChildren(back.view);
    back.from.focus();
  });
  return button;
}

function onLookup(formId: string, kind: RecordKind): void {
  const form = byId<HTMLFormElement>(formId);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = String(new FormData(form).get('id') ?? '').trim();
    byId('result').replaceChildren();
    lookUp(kind, id).catch(() => showError(byId('lookup-error'), UNREACHABLE));
  });
}

type Answer<T> = {
  data?: { data: T[]; next: string | null };
  error?: unknown;
  response: Response;
};

/** One page of a list, or the refusal in words (a 401 signs the user out: nothing to say here). */
async function page<T>(
  kind: ListKind,
  call: (headers: Record<string, string>) => Promise<Answer<T>>,
): Promise<PageAnswer<T>> {
  const token = accessToken();
  if (!token) {
    signedOut('Your session has ended: sign in again.');
    return { words: undefined };
  }
  const answer = await call({ authorization: `Bearer ${token}` });
  if (answer.data && answer.response.ok) return { data: answer.data.data, next: answer.data.next };
  const message = (answer.error as { message?: unknown } | undefined)?.message;
  const refusal = listRefusalFor(
    answer.response.status,
    kind,
    answer.response.headers.get('retry-after'),
    typeof message === 'string' ? message : undefined,
  );
  if (refusal.signInAgain) {
    signedOut(refusal.words);
    return { words: undefined };
  }
  return { words: refusal.words };
}

const pageQuery = (cursor: string | undefined) =>
  cursor === undefined ? { limit: PAGE_SIZE } : { limit: PAGE_SIZE, cursor };

/**
 * A customer's transactions (SPEC 10), newest first, at the end of the customer's page; each
 * opens the transaction in its place, with a way back.
 */
function customerTransactions(customerId: string, view: HTMLElement): void {
  const part = document.createElement('div');
  part.className = 'customer-transactions';
  const status = document.createElement('p');
  status.className = 'status';
  status.setAttribute('role', 'status');
  const alert = document.createElement('p');
  alert.className = 'error';
  alert.setAttribute('role', 'alert');
  alert.hidden = true;
  const list = pagedList<TransactionSummary>({
    words: {
      caption: 'Transactions, newest first',
      heads: CUSTOMER_TRANSACTION_HEADS,
      numeric: [4],
      noun: 'transaction',
      none: 'This customer has no transactions.',
      more: 'More transactions',
    },
    fetch: (cursor) =>
      page('customer-transactions', (headers) =>
        api.GET('/customers/{customer_id}/transactions', {
          params: { path: { customer_id: customerId }, query: pageQuery(cursor) },
          headers,
        }),
      ),
    row: (t) => customerTransactionRow(t, config),
    open: (t) => {
      const from = document.activeElement instanceof HTMLElement ? document.activeElement : view;
      lookUp('transaction', String(t.id), {
        errorBox: alert,
        focus: true,
        back: { view, from },
      }).catch(() => showError(alert, UNREACHABLE));
    },
    status,
    alert,
  });
  part.append(list.element, status, alert);
  view.append(part);
  list.start().catch(() => showError(alert, UNREACHABLE));
}

/** The search field's label and hint, for what the user holds. */
const SEARCH_WORDS: Record<Held | 'teller', readonly [string, string]> = {
  teller: ['Receipt number', 'Digits only, as printed on the receipt.'],
  'receipt-or-name': [
    'Receipt number or name',
    'A receipt number is digits only. A name is the last name, a comma, then the first name or its beginning: Dela Cruz, Juan (or Dela Cruz alone).',
  ],
  tin: ['TIN', 'At least the 9 digits of the TIN card; dashes and spaces do not count.'],
  sss: ['SSS number', 'The whole number; dashes and spaces do not count.'],
  id_no: ['ID number', 'The whole number on the ID card; dashes, spaces and case do not count.'],
};

function heldNow(): Held {
  const value = new FormData(byId<HTMLFormElement>('search-form')).get('held');
  return isHeld(value) ? value : 'receipt-or-name';
}

function describeSearch(): void {
  const [label, hint] = SEARCH_WORDS[readsCustomers ? heldNow() : 'teller'];
  byId('search-label').textContent = label;
  byId('search-hint').textContent = hint;
}

const SEARCH_NONE: Record<Search['kind'], string> = {
  receipt: 'No transaction has that receipt number.',
  name: 'No customer has that name.',
  tin: 'No customer has a TIN that begins with that.',
  sss: 'No customer has that SSS number.',
  id_no: 'No customer has that ID number.',
};

function searchList(search: Search) {
  const status = byId('search-status');
  const alert = byId('search-error');
  const opening = { errorBox: alert, focus: true };
  if (search.route === '/transactions') {
    const query = search.query;
    return pagedList<TransactionSummary>({
      words: {
        caption: 'Transactions found, newest first',
        heads: TRANSACTION_HEADS,
        numeric: [5],
        noun: 'transaction',
        none: SEARCH_NONE.receipt,
        more: 'More results',
      },
      fetch: (cursor) =>
        page('receipt', (headers) =>
          api.GET('/transactions', {
            params: { query: { ...query, ...pageQuery(cursor) } },
            headers,
          }),
        ),
      row: (t) => transactionRow(t, config),
      open: (t) => {
        byId('result').replaceChildren();
        lookUp('transaction', String(t.id), opening).catch(() => showError(alert, UNREACHABLE));
      },
      status,
      alert,
    });
  }
  const query = search.query;
  return pagedList<CustomerSummary>({
    words: {
      caption: 'Customers found, by name',
      heads: CUSTOMER_HEADS,
      noun: 'customer',
      none: SEARCH_NONE[search.kind],
      more: 'More results',
    },
    fetch: (cursor) =>
      page('customers', (headers) =>
        api.GET('/customers', { params: { query: { ...query, ...pageQuery(cursor) } }, headers }),
      ),
    row: (c) => customerRow(c, config),
    open: (c) => {
      byId('result').replaceChildren();
      lookUp('customer', String(c.id), opening).catch(() => showError(alert, UNREACHABLE));
    },
    status,
    alert,
  });
}

async function search(): Promise<void> {
  const input = byId<HTMLInputElement>('search-value');
  const errorBox = byId('search-error');
  hideError(errorBox);
  input.removeAttribute('aria-invalid');
  byId('search-results').replaceChildren();
  silence(byId('search-status'));
  byId('result').replaceChildren();
  const parsed = parseSearch(input.value, heldNow(), readsCustomers);
  if ('problem' in parsed) {
    input.setAttribute('aria-invalid', 'true');
    showError(errorBox, parsed.problem);
    input.focus();
    return;
  }
  const list = searchList(parsed.search);
  byId('search-results').replaceChildren(list.element);
  await list.start();
}

function onSearch(): void {
  const form = byId<HTMLFormElement>('search-form');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    search().catch(() => showError(byId('search-error'), UNREACHABLE));
  });
  form.addEventListener('change', (event) => {
    if ((event.target as HTMLInputElement).name === 'held') describeSearch();
  });
}

/** A printed record says when it was printed: the moment the browser prints, not when shown. */
function stampPrints(): void {
  const stamp = () => {
    for (const time of document.querySelectorAll('.printed-at'))
      time.textContent = printedTime(config);
  };
  window.addEventListener('beforeprint', stamp);
  window.matchMedia('print').addEventListener('change', (event) => {
    if (event.matches) stamp();
  });
}

async function signOut(): Promise<void> {
  const refreshToken = tokens?.refreshToken;
  tokens = undefined;
  clearLookups();
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
  document.title = `${config.businessName} — staff`;
  byId('business-name').textContent = config.businessName;
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
  onSearch();
  stampPrints();
  byId('sign-out').addEventListener('click', () => void signOut());
  byId('sign-in-again').addEventListener('click', () => signedOut());
  show('sign-in');
}

start().catch(() => show('sign-in', 'The page could not load its settings: reload it.'));
