/**
 * What the staff page's browser test (test/e2e/staff-app.test.ts) does and checks on a page, as
 * staff would: wait for a screen, sign in with a code, look a record up, reach a control by the
 * Tab key, and find no token stored.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { DEMO_PASSWORD } from '../../local/cognito/user-pool.ts';
import type { LocalStack } from '../../local/stack/stack.ts';
import { STAFF_APP_PATH } from '../../staff-app/files.ts';

/** Screenshots of each screen (git-ignored; docs/images/ holds copies). */
export const SHOTS = join(PROJECT_ROOT, 'test', '.artifacts', 'staff-app');

/** What the checks read of the page's elements (the tests' TypeScript has no DOM types). */
interface ImageElement {
  decode(): Promise<void>;
  readonly naturalWidth: number;
}
export interface CanvasElement {
  readonly width: number;
  readonly height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  } | null;
}
/** An image's width once decoded: more than 0 when it loaded. */
export const imageWidth = (img: ImageElement) => img.decode().then(() => img.naturalWidth);

export async function visible(page: Page, screen: string): Promise<void> {
  await page.locator(`#screen-${screen}`).waitFor({ state: 'visible' });
}

/** Nothing of a token in localStorage, sessionStorage or cookies, and the address is the page's. */
export async function expectNothingStored(page: Page, appUrl: string): Promise<void> {
  const stored = await page.evaluate(
    '({ local: localStorage.length, session: sessionStorage.length, cookies: document.cookie })',
  );
  expect(stored).toEqual({ local: 0, session: 0, cookies: '' });
  expect(page.url()).toBe(appUrl);
}

/** A demo user's sign-in: password, then the code of the moment; `shot` names the code screen's picture. */
export async function signInWithCode(
  page: Page,
  stack: LocalStack,
  username: string,
  shot?: string,
): Promise<void> {
  const appUrl = `${stack.apiUrl}${STAFF_APP_PATH}`;
  await page.locator('#sign-in-form [name=username]').fill(username);
  await page.locator('#sign-in-form [name=password]').fill(DEMO_PASSWORD);
  await page.locator('#sign-in-form button').click();
  await visible(page, 'code');
  await expectNothingStored(page, appUrl);
  if (shot) await page.screenshot({ path: join(SHOTS, shot) });
  await page.locator('#code-form [name=code]').fill(stack.currentCode(username));
  await page.locator('#code-form button').click();
  await visible(page, 'lookup');
  await expectNothingStored(page, appUrl);
}

export async function lookUp(
  page: Page,
  kind: 'transaction' | 'customer',
  id: string,
): Promise<void> {
  await page.locator(`#${kind}-form [name=id]`).fill(id);
  await page.locator(`#${kind}-form button`).click();
  await page.locator(`#result article, #lookup-error:not([hidden])`).first().waitFor();
}

/** Tab until `selector` has the focus: reachable by the keyboard alone, or the test fails. */
export async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 40; i += 1) {
    if (await page.locator(selector).evaluate((el) => el === el.ownerDocument.activeElement))
      return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} is not reached by the Tab key`);
}
