/**
 * The interactive docs as a person uses them, in a real browser: Debian's Chromium (installed by
 * .ci/run) driven by playwright-core opens /docs on the local rig as `npm start` runs it,
 * authorises with a demo user's token, calls GET /transactions/1 with "Execute", and sees a 200
 * and the transaction. A screenshot of the page is left in test/.artifacts/docs.png (git-ignored).
 * Without a Chromium on the machine (CHROMIUM_PATH, or chromium on the PATH) the test is skipped
 * and says so.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { DOCS_PATH } from '../../local/gateway/docs-page.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { startLocalRig, type LocalRig } from '../../local/rig/rig.ts';
import { testRigOptions } from '../support/shared-dynamodb.ts';
import {
  BROWSER_TEST_TIMEOUT_MS,
  CHROMIUM_ARGS,
  describeWithChromium,
} from '../support/chromium.ts';

const SCREENSHOT = join(PROJECT_ROOT, 'test', '.artifacts', 'docs.png');

const [describeWithBrowser, executablePath] = describeWithChromium('the browser test of /docs');

describeWithBrowser('/docs in Chromium', () => {
  let dataDir: string;
  let rig: LocalRig;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'docs-test-'));
    [rig, browser] = await Promise.all([
      startLocalRig(testRigOptions(dataDir)),
      chromium.launch({ executablePath, args: CHROMIUM_ARGS }),
    ]);
  }, BROWSER_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await rig?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test(
    'authorise with a demo token, Execute GET /transactions/1, see a 200 and the transaction',
    async () => {
      const token = await rig.tokenFor('teller@example.com');
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const offSite: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(rig.apiUrl) && !request.url().startsWith('data:'))
          offSite.push(request.url());
      });

      await page.goto(`${rig.apiUrl}${DOCS_PATH}`);
      await page.getByText('Currency Exchange Read API', { exact: false }).first().waitFor();
      await page.getByText('npm run --silent token -- teller@example.com').waitFor();

      // Authorize: paste the token into the bearer scheme's field.
      await page.locator('button.authorize').first().click();
      await page.locator('.auth-container input').first().fill(token);
      await page.locator('.auth-btn-wrapper button.authorize').click();
      await page.locator('.auth-btn-wrapper button.btn-done').click();

      // GET /transactions/{transaction_id}: open it, id 1, Execute.
      const operation = page.locator('#operations-default-getTransaction');
      await operation.locator('.opblock-summary').click();
      const tryItOut = operation.locator('button.try-out__btn');
      await tryItOut.waitFor();
      if ((await tryItOut.innerText()).trim() === 'Try it out') await tryItOut.click();
      await operation.locator('input[placeholder="transaction_id"]').fill('1');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${rig.apiUrl}/transactions/1`),
        operation.locator('button.execute').click(),
      ]);
      expect(response.status()).toBe(200);
      expect(response.request().headers().authorization).toBe(`Bearer ${token}`);

      // What the page shows: the status and the transaction.
      const live = operation.locator('.live-responses-table');
      await live.locator('.response-col_status', { hasText: '200' }).first().waitFor();
      const shown = await live.locator('.response-col_description pre').first().innerText();
      expect(shown).toContain('"receipt_no": 20230915000123');
      expect(shown).toContain('"message": "Ok"');

      mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
      await page.setViewportSize({ width: 1280, height: 1600 });
      await operation.evaluate((element) => element.scrollIntoView());
      await page.screenshot({ path: SCREENSHOT });
      // Swagger UI read the contract without a complaint (it shows one above the operations).
      expect(await page.locator('.swagger-ui .errors-wrapper').count()).toBe(0);
      expect(offSite).toEqual([]); // nothing from a CDN: the page works offline
    },
    BROWSER_TEST_TIMEOUT_MS,
  );
});
