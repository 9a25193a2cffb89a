/**
 * The staff page (/app/) as staff use it, in a real browser against the local rig as
 * `npm start` runs it: Debian's Chromium driven by playwright-core. First sign-in of a new user
 * (new password, TOTP enrolment with the key the page shows), sign-in with a code, a transaction
 * with its signature, a teller refused a customer in words, a compliance officer shown the
 * customer and the ID photo, sign-out (no token left, the refresh token revoked), an expired
 * token back to sign-in; no token in web storage after any step. The search (SPEC 10): a teller
 * by receipt number, compliance by name (namesakes, in pages) and by TIN, a customer's
 * transactions with more on request, the result list by the keyboard alone, and axe-core's
 * WCAG 2.1 AA rules on each of those screens. Screenshots of each screen are left in
 * test/.artifacts/staff-app/ (git-ignored; docs/images/ holds copies).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdminCreateUserCommand,
  InitiateAuthCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { decodeQR } from '@paulmillr/qr/decode.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { cognitoClient, DEMO_PASSWORD } from '../../local/cognito/user-pool.ts';
import {
  expectAccessible,
  expectNothingStored,
  focusedText,
  imageWidth,
  lookUp,
  resultRows,
  search,
  SHOTS,
  signInWithCode,
  tabTo,
  visible,
  type CanvasElement,
} from '../support/staff-app-page.ts';
import { customer, line, transaction } from '../fixtures.ts';
import { startLocalRig, type LocalRig } from '../../local/rig/rig.ts';
import { importInto } from '../support/rig-import.ts';
import { testRigOptions } from '../support/shared-dynamodb.ts';
import { totpCode } from '../../sign-in/totp.ts';
import { STAFF_APP_PATH } from '../../staff-app/files.ts';
import { securityHeaders } from '../../staff-app/security-headers.ts';
import {
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM_ARGS,
  describeWithChromium,
} from '../support/chromium.ts';

const [describeWithBrowser, executablePath] = describeWithChromium('the browser test of /app/');

/*
 * The searches' own records (invented names), ids far from the demo data's: twelve namesakes by
 * last name (two of them Juan, with a Juana for the first name's prefix), two TINs of one card
 * (9 digits, then branch codes), a customer with twelve transactions (more than a page), and one
 * receipt number on two transactions.
 */
const LAST_NAME = 'Dimaculangan';
const FIRST_NAMES = [
  'Jose',
  'Josefa',
  'Joselito',
  'Juan',
  'Juan',
  'Juana',
  'Julia',
  'Maria',
  'Mario',
  'Pedro',
  'Rosa',
  'Teresa',
];
const NAMESAKE = 9001; // customers 9001..9012, in FIRST_NAMES order
const BUSY_CUSTOMER = 9004; // the elder Juan: twelve transactions
const SHARED_RECEIPT = 20240401000777;
const TIN_CARD = '555-123-456';

function searchRecords(): string[] {
  const customers = FIRST_NAMES.map((first, i) =>
    line(
      'customer',
      customer({
        id: NAMESAKE + i,
        first_name: first,
        middle_name: 'Reyes',
        last_name: LAST_NAME,
        email: `namesake-${i}@example.test`,
        tin: i < 2 ? `${TIN_CARD}-00${i}` : null,
        id_no: null,
        date_of_birth: `${1980 + i * 3}-0${1 + (i % 9)}-1${i % 10}T00:00:00.000000Z`,
        customer_risk_assessments: [
          {
            id: NAMESAKE + i,
            customer_id: NAMESAKE + i,
            type: { value: 1, description: 'Complete Name' },
            value: `${first} Reyes ${LAST_NAME}`,
            grade: 1,
          },
        ],
        last_transaction_datetime: NAMESAKE + i === BUSY_CUSTOMER ? '2024-03-12 09:00:00' : null,
      }),
    ),
  );
  const sale = (id: number, of: number, createdAt: string, more: Record<string, unknown> = {}) =>
    line(
      'transaction',
      transaction({
        id,
        receipt_no: 20240300000000 + id,
        customer: {
          id: of,
          first_name: FIRST_NAMES[of - NAMESAKE],
          email: 'namesake@example.test',
        },
        signature: null,
        created_at: createdAt,
        ...more,
      }),
    );
  const busy = Array.from({ length: 12 }, (_, i) =>
    sale(9101 + i, BUSY_CUSTOMER, `2024-03-${String(1 + i).padStart(2, '0')} 09:00:00`),
  );
  const shared = [
    sale(9201, NAMESAKE, '2024-04-01 10:15:00', { receipt_no: SHARED_RECEIPT }),
    sale(9202, NAMESAKE + 1, '2024-04-01 11:40:00', {
      receipt_no: SHARED_RECEIPT,
      branch: { id: 2, name: 'Cebu Branch', address: '45 Osmeña Boulevard, Cebu City' },
      total_amount: '98765.40',
    }),
  ];
  return [...customers, ...busy, ...shared];
}

describeWithBrowser('the staff page in Chromium', () => {
  let dataDir: string;
  let rig: LocalRig;
  let browser: Browser;
  let cognito: CognitoIdentityProviderClient;
  let appUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'staff-app-test-'));
    [rig, browser] = await Promise.all([
      startLocalRig(testRigOptions(dataDir)),
      chromium.launch({ executablePath, args: CHROMIUM_ARGS }),
    ]);
    cognito = cognitoClient(rig.cognito.endpoint);
    appUrl = `${rig.apiUrl}${STAFF_APP_PATH}`;
    // The walk-through's second file (transactions 3 and 4, customer 2 with three risk
    // assessments), its files not put: customer 2's ID photo is a key with no file behind it.
    const seeded = join(dataDir, 'search-records.jsonl');
    writeFileSync(seeded, `${searchRecords().join('\n')}\n`);
    await importInto(rig, [join(PROJECT_ROOT, 'local', 'demo-more-records.jsonl'), seeded]);
    mkdirSync(SHOTS, { recursive: true });
  }, BROWSER_TEST_TIMEOUT_MS);

  afterAll(async () => {
    cognito?.destroy();
    await browser?.close();
    await rig?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A fresh page that records every refresh token Cognito hands it and every URL it visits. */
  async function openPage(options: { fakeClock?: boolean } = {}): Promise<{
    page: Page;
    refreshTokens: string[];
    accessTokens: string[];
  }> {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    // The page's clock, moved forward by the test; Cognito and the API keep real time.
    if (options.fakeClock) await page.clock.install();
    const refreshTokens: string[] = [];
    const accessTokens: string[] = [];
    page.on('response', async (response) => {
      if (!response.url().startsWith(rig.cognito.endpoint) || response.status() !== 200) return;
      const body = (await response.json().catch(() => ({}))) as {
        AuthenticationResult?: { RefreshToken?: string; AccessToken?: string };
      };
      if (body.AuthenticationResult?.RefreshToken)
        refreshTokens.push(body.AuthenticationResult.RefreshToken);
      if (body.AuthenticationResult?.AccessToken)
        accessTokens.push(body.AuthenticationResult.AccessToken);
    });
    await page.goto(appUrl);
    await visible(page, 'sign-in');
    return { page, refreshTokens, accessTokens };
  }

  test('the page and its files carry the security headers, locally as in a stage', async () => {
    const expected = securityHeaders({
      api: rig.apiUrl,
      cognito: new URL(rig.cognito.endpoint).origin,
      files: new URL(rig.s3Endpoint).origin,
    });
    for (const file of ['', 'app.js', 'app.css', 'config.json']) {
      const response = await fetch(`${appUrl}${file}`);
      expect(response.status).toBe(200);
      for (const [name, value] of Object.entries(expected))
        expect([file, name, response.headers.get(name)]).toEqual([file, name, value]);
    }
    const csp = expected['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  test(
    'a teller: password, then a code; a transaction with its lines and signature; a customer refused in words',
    async () => {
      const { page, accessTokens } = await openPage();
      await page.screenshot({ path: join(SHOTS, 'sign-in.png') });
      // A wrong password: said in words, and the e-mail stays for the next try.
      await page.locator('#sign-in-form [name=username]').fill('teller@example.com');
      await page.locator('#sign-in-form [name=password]').fill('Not-the-password-1');
      await page.locator('#sign-in-form button').click();
      await page.locator('#notice:not([hidden])').waitFor();
      await expect(page.locator('#notice').innerText()).resolves.toBe(
        'The e-mail or password is not right, or the account is disabled.',
      );
      await expect(page.locator('#sign-in-form [name=username]').inputValue()).resolves.toBe(
        'teller@example.com',
      );
      await expect(page.locator('#sign-in-form [name=password]').inputValue()).resolves.toBe('');
      await signInWithCode(page, rig, 'teller@example.com', 'code.png');

      await lookUp(page, 'transaction', '1');
      const article = page.locator('#result article[data-kind=transaction]');
      await expect(article.locator('h3').innerText()).resolves.toBe('Receipt 20230915000123');
      const text = await article.innerText();
      expect(text).toContain('56.12500');
      // Amounts grouped as a teller reads them, exact, each with its currency: the business's
      // own for what is reckoned at the rate, the line's for what was exchanged; the time says
      // its zone.
      expect(text).toMatch(/Date\s+2023-09-15 10:01:02 \(Asia\/Manila\)/);
      expect(text).toMatch(/Total\s+PHP 56,125\.00/);
      expect(text).toMatch(/Total profit\s+PHP 250\.00/);
      expect(text).toMatch(
        /US Dollar \(USD\)\s+56\.12500\s+USD 1,000\.00\s+PHP 56,125\.00\s+PHP 250\.0000/,
      );
      expect(text).toMatch(
        /Customer\s+Juan \(customer 1\)\s+Customer e-mail\s+juan\.delacruz@example\.com/,
      );
      const signature = article.locator('img.image');
      await expect(signature.evaluate(imageWidth)).resolves.toBeGreaterThan(0);
      await page.screenshot({ path: join(SHOTS, 'transaction.png'), fullPage: true });

      // Amounts exactly as the API sends them: 22 digits survive, grouped.
      await lookUp(page, 'transaction', '2');
      const two = await page.locator('#result').innerText();
      expect(two).toContain('PHP 12,345,678,901,234,567,890.12');
      expect(two).toMatch(/Japanese Yen \(JPY\)\s+0\.38120\s+JPY 10,000\.00\s+PHP 3,812\.00/);

      await lookUp(page, 'customer', '1');
      await expect(page.locator('#lookup-error').innerText()).resolves.toBe(
        'Your account may not read customers.',
      );
      await expect(page.locator('#result').innerText()).resolves.toBe('');
      await page.screenshot({ path: join(SHOTS, 'refused.png') });

      await lookUp(page, 'transaction', '999999');
      await expect(page.locator('#lookup-error').innerText()).resolves.toBe(
        'There is no transaction with that id.',
      );
      await expectNothingStored(page, appUrl);
      // The token the page holds appears nowhere in its document.
      expect(accessTokens).toHaveLength(1);
      expect(await page.content()).not.toContain(accessTokens[0]!);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );

  test(
    'a compliance officer sees the customer and the ID photo; sign-out forgets the tokens and revokes the refresh token',
    async () => {
      const { page, refreshTokens, accessTokens } = await openPage();
      await signInWithCode(page, rig, 'compliance@example.com');
      await lookUp(page, 'customer', '1');
      const article = page.locator('#result article[data-kind=customer]');
      // Every field of SPEC 3.2 with its label, as compliance reads a KYC record.
      const record = await article.innerText();
      for (const [label, value] of [
        ['First name', 'Juan'],
        ['Middle name', 'Santos'],
        ['Last name', 'Dela Cruz'],
        ['E-mail', 'juan.delacruz@example.com'],
        ['Contact number', '+63 917 000 0000'],
        ['Date of birth', '1990-05-14'],
        ['Place of birth', 'Manila'],
        ['Nationality', 'Filipino'],
        ['Current address', '123 Ayala Avenue, Makati City'],
        ['Permanent address', 'Not recorded'],
        ['Document', 'Passport'],
        ['Document number', 'P1234567A'],
        ['TIN', '123-456-789-000'],
        ['SSS', 'Not recorded'],
        ['Risk', 'Low Risk'],
        ['Risk score', '1'],
        ['Last transaction', '2023-09-16 08:30:00 (Asia/Manila)'],
      ] as const)
        expect(record.split('\n')).toContain(`${label}\t${value}`);
      expect(record).not.toContain('T00:00:00');
      const photo = article.locator('img.image');
      await expect(photo.evaluate(imageWidth)).resolves.toBeGreaterThan(0);
      await page.screenshot({ path: join(SHOTS, 'customer.png'), fullPage: true });

      // Risk assessments as a table, in ascending id order; an ID photo whose file is not in the
      // bucket is a sentence, never a broken image.
      await lookUp(page, 'customer', '2');
      const two = page.locator('#result article[data-kind=customer]');
      await two.locator('.no-file').waitFor();
      const risks = two.locator('table.grid');
      await expect(risks.locator('caption').innerText()).resolves.toBe('Risk assessments');
      await expect(risks.locator('thead th').allInnerTexts()).resolves.toEqual([
        'Type',
        'Value',
        'Grade',
      ]);
      await expect(risks.locator('tbody tr').allInnerTexts()).resolves.toEqual([
        'Complete Name\tMaria Reyes Santos\t1',
        'Nationality\tFilipino\t1',
        'Occupation\tExporter\t2',
      ]);
      await expect(two.locator('img').count()).resolves.toBe(0);
      await expect(two.locator('.no-file').innerText()).resolves.toMatch(
        /^The ID photo could not be loaded: its file is not in the files bucket/,
      );
      await page.screenshot({ path: join(SHOTS, 'customer-risks.png'), fullPage: true });
      // Printed: the record alone, every table whole; the forms and buttons left out.
      await page.emulateMedia({ media: 'print' });
      await expect(page.locator('header').isVisible()).resolves.toBe(false);
      await expect(page.locator('#customer-form').isVisible()).resolves.toBe(false);
      await expect(two.isVisible()).resolves.toBe(true);
      await page.screenshot({ path: join(SHOTS, 'customer-print.png'), fullPage: true });
      await page.emulateMedia({ media: 'screen' });

      expect(refreshTokens).toHaveLength(1);
      await page.locator('#sign-out').click();
      await visible(page, 'signed-out');
      // In a teller's words: no tokens, no commands.
      const words = await page.locator('#screen-signed-out').innerText();
      expect(words).toContain('You are signed out');
      expect(words).toContain('ask an administrator');
      expect(words).not.toMatch(/token|npm/i);
      await page.screenshot({ path: join(SHOTS, 'signed-out.png') });
      await expectNothingStored(page, appUrl);
      const html = await page.content();
      expect(html).not.toContain(accessTokens[0]!);
      expect(html).not.toContain(refreshTokens[0]!);
      expect(await page.locator('#result').innerText()).toBe('');

      // The refresh token the page had can no longer be used.
      await expect(
        cognito.send(
          new InitiateAuthCommand({
            AuthFlow: 'REFRESH_TOKEN_AUTH',
            ClientId: rig.cognito.clientId,
            AuthParameters: { REFRESH_TOKEN: refreshTokens[0]! },
          }),
        ),
      ).rejects.toMatchObject({ name: 'NotAuthorizedException' });
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );

  test(
    'a new user: temporary password, new password, TOTP enrolment by the QR code, then lookups',
    async () => {
      const username = 'new.teller@example.com';
      await cognito.send(
        new AdminCreateUserCommand({
          UserPoolId: rig.cognito.userPoolId,
          Username: username,
          UserAttributes: [
            { Name: 'email', Value: username },
            { Name: 'email_verified', Value: 'true' },
          ],
          MessageAction: 'SUPPRESS',
          TemporaryPassword: 'Temporary-Passw0rd!',
        }),
      );
      const { page } = await openPage();
      await page.locator('#sign-in-form [name=username]').fill(username);
      await page.locator('#sign-in-form [name=password]').fill('Temporary-Passw0rd!');
      await page.locator('#sign-in-form button').click();
      await visible(page, 'new-password');
      await page.screenshot({ path: join(SHOTS, 'new-password.png') });
      await page.locator('#new-password-form [name=password]').fill('Chosen-by-the-user-2026!');
      await page.locator('#new-password-form button').click();
      await visible(page, 'enrol');
      // The QR code, read as a phone would (another library than the one that drew it): the
      // otpauth URI of the key the page shows beside it.
      const image = await page.locator('#enrol-qr').evaluate((canvas: CanvasElement) => {
        const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
        return { width: canvas.width, height: canvas.height, data: Array.from(data) };
      });
      const uri = new URL(decodeQR({ ...image, data: Uint8Array.from(image.data) }));
      expect(uri.protocol).toBe('otpauth:');
      expect(uri.host).toBe('totp');
      expect(decodeURIComponent(uri.pathname)).toBe(`/Currency Exchange (local):${username}`);
      expect(uri.searchParams.get('issuer')).toBe('Currency Exchange (local)');
      const secret = uri.searchParams.get('secret')!;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect((await page.locator('#enrol-secret').innerText()).trim()).toBe(secret);
      await page.screenshot({ path: join(SHOTS, 'enrol.png') });
      await expectNothingStored(page, appUrl);

      await page.locator('#enrol-form [name=code]').fill(totpCode(secret));
      await page.locator('#enrol-form button').click();
      await visible(page, 'lookup');
      await lookUp(page, 'transaction', '1');
      await expect(page.locator('#result article h3').innerText()).resolves.toBe(
        'Receipt 20230915000123',
      );
      await expectNothingStored(page, appUrl);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );

  test(
    'every action by the keyboard alone: sign in, look up each kind of record, sign out',
    async () => {
      const { page } = await openPage();
      await tabTo(page, '#sign-in-form [name=username]');
      await page.keyboard.type('compliance@example.com');
      await tabTo(page, '#sign-in-form [name=password]');
      await page.keyboard.type(DEMO_PASSWORD);
      await page.keyboard.press('Enter');
      await visible(page, 'code');
      await tabTo(page, '#code-form [name=code]');
      await page.keyboard.type(rig.currentCode('compliance@example.com'));
      await page.keyboard.press('Enter');
      await visible(page, 'lookup');
      await tabTo(page, '#transaction-form [name=id]');
      await page.keyboard.type('3');
      await page.keyboard.press('Enter');
      await page.locator('#result article[data-kind=transaction]').waitFor();
      await tabTo(page, '#customer-form [name=id]');
      await page.keyboard.type('2');
      await tabTo(page, '#customer-form button');
      await page.keyboard.press('Enter');
      await page.locator('#result article[data-kind=customer]').waitFor();
      await tabTo(page, '#sign-out');
      await page.keyboard.press('Enter');
      await visible(page, 'signed-out');
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );

  test(
    'an expired access token leads back to sign-in, with the reason',
    async () => {
      const { page, accessTokens } = await openPage({ fakeClock: true });
      await signInWithCode(page, rig, 'compliance@example.com');
      // Past the token's own expiry (15 minutes in a stage; the local pool's client says 60).
      const { exp, iat } = JSON.parse(
        Buffer.from(accessTokens[0]!.split('.')[1]!, 'base64url').toString(),
      ) as { exp: number; iat: number };
      await page.clock.fastForward((exp - iat + 60) * 1000);
      await page.locator('#transaction-form [name=id]').fill('1');
      await page.locator('#transaction-form button').click();
      await visible(page, 'sign-in');
      expect(await page.locator('#result').innerText()).toBe('');
      await expect(page.locator('#notice').innerText()).resolves.toBe(
        'Your session has ended: sign in again.',
      );
      await expectNothingStored(page, appUrl);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );

  test(
    'a teller searches by receipt number: every transaction of the receipt listed, one opened; anything else said in words',
    async () => {
      const { page } = await openPage();
      await signInWithCode(page, rig, 'teller@example.com');
      // A teller holds receipts only: no choice of what is held, the field says what it takes.
      await expect(page.locator('#search-held').isVisible()).resolves.toBe(false);
      await expect(page.locator('#search-label').innerText()).resolves.toBe('Receipt number');
      await expect(
        page.locator('#search-value').evaluate((el) => el === el.ownerDocument.activeElement),
      ).resolves.toBe(true);
      await expectAccessible(page);

      await search(page, 'Dela Cruz, Juan');
      await expect(page.locator('#search-error').innerText()).resolves.toBe(
        'A receipt number is digits only, e.g. 20230915000123. Your account may not search customers.',
      );
      await expect(page.locator('#search-value').getAttribute('aria-invalid')).resolves.toBe(
        'true',
      );
      await search(page, '020240401000777');
      await expect(page.locator('#search-error').innerText()).resolves.toMatch(
        /^That is not a receipt number: .* no leading zero\.$/,
      );
      await expectAccessible(page);

      // Spaces between the digits do not count; the newest first.
      await search(page, ` ${String(SHARED_RECEIPT).replace(/(\d{8})/, '$1 ')} `);
      await expect(page.locator('#search-status').innerText()).resolves.toBe(
        '2 transactions found.',
      );
      await expect(page.locator('#search-error').isVisible()).resolves.toBe(false);
      await expect(page.locator('#search-results caption').innerText()).resolves.toBe(
        'Transactions found, newest first',
      );
      await expect(page.locator('#search-results thead th').allInnerTexts()).resolves.toEqual([
        'Receipt',
        'Date',
        'Branch',
        'Customer',
        'Type',
        'Total',
      ]);
      await expect(resultRows(page)).resolves.toEqual([
        `${SHARED_RECEIPT}\t2024-04-01 11:40:00 (Asia/Manila)\tCebu Branch\tJosefa (customer 9002)\tBuy\tPHP 98,765.40`,
        `${SHARED_RECEIPT}\t2024-04-01 10:15:00 (Asia/Manila)\tTest Branch\tJose (customer 9001)\tBuy\tPHP 1,250.00`,
      ]);
      // The buttons of one receipt are told apart by what the row says of each.
      const first = page.locator('#search-results tbody tr').first().locator('button.open');
      const described = (await first.getAttribute('aria-describedby'))!.split(' ');
      await expect(
        Promise.all(described.map((id) => page.locator(`[id="${id}"]`).innerText())),
      ).resolves.toEqual(['2024-04-01 11:40:00 (Asia/Manila)', 'Cebu Branch']);
      await expect(page.locator('#search-results button.more').isVisible()).resolves.toBe(false);
      await page.screenshot({ path: join(SHOTS, 'search-receipt.png'), fullPage: true });
      await expectAccessible(page);

      await first.click();
      const article = page.locator('#result article[data-kind=transaction]');
      await article.waitFor();
      await expect(article.locator('h3').innerText()).resolves.toBe(`Receipt ${SHARED_RECEIPT}`);
      await expect(focusedText(page)).resolves.toBe(`Receipt ${SHARED_RECEIPT}`);
      expect(await article.innerText()).toMatch(/Transaction\s+9202/);
      // The list stays, to open the other one.
      await expect(resultRows(page)).resolves.toHaveLength(2);
      await expectAccessible(page);

      await search(page, '20240401000999');
      await expect(page.locator('#search-status').innerText()).resolves.toBe(
        'No transaction has that receipt number.',
      );
      await expect(page.locator('#search-results table').isVisible()).resolves.toBe(false);
      await expect(page.locator('#result').innerText()).resolves.toBe('');
      await expectNothingStored(page, appUrl);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );

  test(
    'compliance searches by name (namesakes, in pages) and by TIN, opens a customer and goes through their transactions; the printed record says whose, when and by whom',
    async () => {
      const { page } = await openPage();
      await signInWithCode(page, rig, 'compliance@example.com');
      await expect(page.locator('#search-held legend').innerText()).resolves.toBe('What you hold');
      await expect(
        page
          .locator('#search-held-default')
          .evaluate((el) => (el as { checked?: boolean }).checked),
      ).resolves.toBe(true);
      await expect(page.locator('#search-label').innerText()).resolves.toBe(
        'Receipt number or name',
      );
      await expectAccessible(page);

      // A last name alone: a page of ten, then More.
      await search(page, LAST_NAME.toUpperCase());
      await expect(page.locator('#search-status').innerText()).resolves.toBe(
        '10 customers found, and there may be more: More results.',
      );
      await expect(resultRows(page)).resolves.toHaveLength(10);
      await page.locator('#search-results button.more').click();
      await page.locator('#search-status:text-matches("^2 more")').waitFor();
      await expect(page.locator('#search-status').innerText()).resolves.toBe(
        '2 more customers: 12 shown. That is all.',
      );
      await expect(resultRows(page)).resolves.toHaveLength(12);
      // The focus goes on where the list goes on: the first of the new rows.
      await expect(focusedText(page)).resolves.toBe(`${LAST_NAME}, Rosa Reyes`);
      await expect(page.locator('#search-results button.more').isVisible()).resolves.toBe(false);

      // Last name, first name: the first name's beginning; namesakes told apart by birth and id.
      await search(page, `${LAST_NAME}, Juan`);
      await expect(page.locator('#search-status').innerText()).resolves.toBe('3 customers found.');
      await expect(page.locator('#search-results thead th').allInnerTexts()).resolves.toEqual([
        'Name',
        'Date of birth',
        'Customer',
        'Risk',
        'Last transaction',
      ]);
      await expect(resultRows(page)).resolves.toEqual([
        `${LAST_NAME}, Juan Reyes\t1989-04-13\tCustomer 9004\tLow Risk\t2024-03-12 09:00:00 (Asia/Manila)`,
        `${LAST_NAME}, Juan Reyes\t1992-05-14\tCustomer 9005\tLow Risk\tNone`,
        `${LAST_NAME}, Juana Reyes\t1995-06-15\tCustomer 9006\tLow Risk\tNone`,
      ]);
      await page.screenshot({ path: join(SHOTS, 'search.png'), fullPage: true });
      await expectAccessible(page);

      // A TIN: said so, at least its 9 digits; branch codes after them find both.
      await page.locator('#search-form [name=held][value=tin]').check();
      await expect(page.locator('#search-label').innerText()).resolves.toBe('TIN');
      await search(page, '555-123');
      await expect(page.locator('#search-error').innerText()).resolves.toBe(
        "A TIN has at least 9 digits (the TIN card's); dashes and spaces do not count.",
      );
      await search(page, TIN_CARD.replace(/-/g, ' '));
      await expect(page.locator('#search-status').innerText()).resolves.toBe('2 customers found.');
      await expect(page.locator('#search-results tbody th').allInnerTexts()).resolves.toEqual([
        `${LAST_NAME}, Jose Reyes`,
        `${LAST_NAME}, Josefa Reyes`,
      ]);
      await search(page, '999-999-999', 'tin');
      await expect(page.locator('#search-status').innerText()).resolves.toBe(
        'No customer has a TIN that begins with that.',
      );
      // Digits among other characters, held as a receipt or a name: which, the page asks.
      await search(page, TIN_CARD, 'receipt-or-name');
      await expect(page.locator('#search-error').innerText()).resolves.toMatch(
        /^That is neither a receipt number \(digits only\) nor a name: .*"What you hold"\.$/,
      );

      // The elder Juan: his record, then his transactions, newest first, ten and then More.
      // Case and spaces do not count.
      await search(page, 'dimaculangan,  JUAN');
      await page.locator('#search-results tbody tr').first().locator('button.open').click();
      const article = page.locator('#result article[data-kind=customer]');
      await article.locator('.customer-transactions tbody tr').first().waitFor();
      await expect(focusedText(page)).resolves.toBe(`Juan Reyes ${LAST_NAME}`);
      const list = article.locator('.customer-transactions');
      await expect(list.locator('caption').innerText()).resolves.toBe('Transactions, newest first');
      await list.locator('.status:not(:empty)').waitFor();
      await expect(list.locator('.status').innerText()).resolves.toBe(
        '10 transactions found, and there may be more: More transactions.',
      );
      const receipts = () => list.locator('tbody th').allInnerTexts();
      await expect(receipts()).resolves.toEqual(
        Array.from({ length: 10 }, (_, i) => String(20240300000000 + 9112 - i)),
      );
      await expect(list.locator('tbody tr').first().innerText()).resolves.toBe(
        '20240300009112\t2024-03-12 09:00:00 (Asia/Manila)\tTest Branch\tBuy\tPHP 1,250.00',
      );
      await list.locator('button.more').click();
      await list.locator('.status:text-matches("^2 more")').waitFor();
      await expect(receipts()).resolves.toHaveLength(12);
      await expect(focusedText(page)).resolves.toBe('20240300009102');
      await expect(list.locator('button.more').isVisible()).resolves.toBe(false);
      await page.screenshot({ path: join(SHOTS, 'customer-transactions.png'), fullPage: true });
      await expectAccessible(page);

      // One opens the transaction; back goes to the customer as left, the focus where it was.
      await list.locator('tbody tr').nth(11).locator('button.open').click();
      const opened = page.locator('#result article[data-kind=transaction]');
      await opened.waitFor();
      await expect(opened.locator('h3').innerText()).resolves.toBe('Receipt 20240300009101');
      await expectAccessible(page);
      await opened.locator('button.back').click();
      await article.waitFor();
      await expect(receipts()).resolves.toHaveLength(12);
      await expect(focusedText(page)).resolves.toBe('20240300009101');

      // Printed: the business's name, when and by whom, the record and its transactions as text.
      await page.emulateMedia({ media: 'print' });
      const head = article.locator('.print-head');
      await expect(head.isVisible()).resolves.toBe(true);
      await expect(head.locator('.business-name').innerText()).resolves.toBe('Currency Exchange');
      await expect(head.innerText()).resolves.toMatch(
        /Customer record \(KYC\), printed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(Asia\/Manila\) by compliance@example\.com\./,
      );
      const printed = /printed (\S+ \S+) /.exec(await head.innerText())![1]!;
      const now = Date.parse(`${printed.replace(' ', 'T')}+08:00`);
      expect(Math.abs(now - Date.now())).toBeLessThan(5 * 60_000);
      await expect(page.locator('#search-results').isVisible()).resolves.toBe(false);
      await expect(list.locator('tbody tr').first().isVisible()).resolves.toBe(true);
      await expect(list.locator('button.more').isVisible()).resolves.toBe(false);
      await page.emulateMedia({ media: 'screen' });
      await expect(head.isVisible()).resolves.toBe(false);
      await expectNothingStored(page, appUrl);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );

  test(
    'the result list by the keyboard alone: search, reach each result in order, open one, ask for more',
    async () => {
      const { page } = await openPage();
      await signInWithCode(page, rig, 'compliance@example.com');
      // The field has the focus once signed in.
      await page.keyboard.type(`${LAST_NAME}, Juan`);
      await page.keyboard.press('Enter');
      await page.locator('#search-status:not(:empty)').waitFor();
      // Tab from the field: the choice of what is held, the button, then the results in order.
      const order: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        await page.keyboard.press('Tab');
        order.push(
          String(
            await page.evaluate(
              'document.activeElement.getAttribute("value") || document.activeElement.textContent',
            ),
          ),
        );
      }
      expect(order).toEqual([
        'receipt-or-name',
        'Search',
        `${LAST_NAME}, Juan Reyes`,
        `${LAST_NAME}, Juan Reyes`,
        `${LAST_NAME}, Juana Reyes`,
      ]);
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Enter');
      const article = page.locator('#result article[data-kind=customer]');
      await article.waitFor();
      expect(await article.innerText()).toMatch(/Customer\s+9005/);
      await expect(focusedText(page)).resolves.toBe(`Juan Reyes ${LAST_NAME}`);

      // A last name alone, then More by the keyboard: the focus on the first new result.
      await tabTo(page, '#search-value');
      await page.keyboard.press('Control+A');
      await page.keyboard.type(LAST_NAME);
      await page.keyboard.press('Enter');
      await page.locator('#search-status:text-matches("^10 customers")').waitFor();
      await tabTo(page, '#search-results button.more');
      await page.keyboard.press('Enter');
      await page.locator('#search-status:text-matches("^2 more")').waitFor();
      await expect(focusedText(page)).resolves.toBe(`${LAST_NAME}, Rosa Reyes`);
      await page.keyboard.press('Enter');
      await article.waitFor();
      expect(await article.innerText()).toMatch(/Customer\s+9011/);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );
});
