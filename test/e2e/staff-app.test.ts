/**
 * The staff page (/app/) as staff use it, in a real browser against the local stack as
 * `npm start` runs it: Debian's Chromium driven by playwright-core. First sign-in of a new user
 * (new password, TOTP enrolment with the key the page shows), sign-in with a code, a transaction
 * with its signature, a teller refused a customer in words, a compliance officer shown the
 * customer and the ID photo, sign-out (no token left, the refresh token revoked), an expired
 * token back to sign-in; no token in web storage after any step. Screenshots of each screen are
 * left in test/.artifacts/staff-app/ (git-ignored; docs/images/ holds copies).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
  expectNothingStored,
  imageWidth,
  lookUp,
  SHOTS,
  signInWithCode,
  tabTo,
  visible,
  type CanvasElement,
} from '../support/staff-app-page.ts';
import { startLocalStack, type LocalStack } from '../../local/stack/stack.ts';
import { DEFAULT_TIME_ZONE } from '../../core/settings.ts';
import { createDocumentClient } from '../../functions/shared/document-client.ts';
import { importFile } from '../../import/direct-import.ts';
import { testStackOptions } from '../support/shared-dynamodb.ts';
import { totpCode } from '../../sign-in/totp.ts';
import { STAFF_APP_PATH } from '../../staff-app/files.ts';
import { securityHeaders } from '../../staff-app/security-headers.ts';
import {
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM_ARGS,
  describeWithChromium,
} from '../support/chromium.ts';

const [describeWithBrowser, executablePath] = describeWithChromium('the browser test of /app/');

describeWithBrowser('the staff page in Chromium', () => {
  let dataDir: string;
  let stack: LocalStack;
  let browser: Browser;
  let cognito: CognitoIdentityProviderClient;
  let appUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'staff-app-test-'));
    [stack, browser] = await Promise.all([
      startLocalStack(testStackOptions(dataDir)),
      chromium.launch({ executablePath, args: CHROMIUM_ARGS }),
    ]);
    cognito = cognitoClient(stack.cognito.endpoint);
    appUrl = `${stack.apiUrl}${STAFF_APP_PATH}`;
    // The walk-through's second file (transactions 3 and 4, customer 2 with three risk
    // assessments), its files not put: customer 2's ID photo is a key with no file behind it.
    const client = createDocumentClient({
      region: 'us-east-1',
      endpoint: stack.dynamoDbEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await importFile(join(PROJECT_ROOT, 'local', 'demo-more-records.jsonl'), {
      client,
      tableName: stack.tableName,
      displayTimeZone: DEFAULT_TIME_ZONE,
    }).finally(() => client.destroy());
    mkdirSync(SHOTS, { recursive: true });
  }, BROWSER_TEST_TIMEOUT_MS);

  afterAll(async () => {
    cognito?.destroy();
    await browser?.close();
    await stack?.stop();
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
      if (!response.url().startsWith(stack.cognito.endpoint) || response.status() !== 200) return;
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
      api: stack.apiUrl,
      cognito: new URL(stack.cognito.endpoint).origin,
      files: new URL(stack.s3Endpoint).origin,
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
      await signInWithCode(page, stack, 'teller@example.com', 'code.png');

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
      await signInWithCode(page, stack, 'compliance@example.com');
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
            ClientId: stack.cognito.clientId,
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
          UserPoolId: stack.cognito.userPoolId,
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
      await page.keyboard.type(stack.currentCode('compliance@example.com'));
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
      await signInWithCode(page, stack, 'compliance@example.com');
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
});
