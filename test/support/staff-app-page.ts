/**
 * What the staff page's browser test (test/e2e/staff-app.test.ts) does and checks on a page, as
 * staff would: wait for a screen, sign in with a code, look a record up, search, reach a control
 * by the Tab key, find no token stored, and find no WCAG 2.1 A or AA violation axe-core can see.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { DEMO_PASSWORD } from '../../local/cognito/user-pool.ts';
import type { LocalRig } from '../../local/rig/rig.ts';
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
  rig: LocalRig,
  username: string,
  shot?: string,
): Promise<void> {
  const appUrl = `${rig.apiUrl}${STAFF_APP_PATH}`;
  await page.locator('#sign-in-form [name=username]').fill(username);
  await page.locator('#sign-in-form [name=password]').fill(DEMO_PASSWORD);
  await page.locator('#sign-in-form button').click();
  await visible(page, 'code');
  await expectNothingStored(page, appUrl);
  if (shot) await page.screenshot({ path: join(SHOTS, shot) });
  await page.locator('#code-form [name=code]').fill(rig.currentCode(username));
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

/** What the user holds, as the search form's choices name it (staff-app/search.ts). */
export type Held = 'receipt-or-name' | 'tin' | 'sss' | 'id_no';

/** A search from the one search field; waits for what it says (found, none, or a problem). */
export async function search(page: Page, value: string, held?: Held): Promise<void> {
  if (held) await page.locator(`#search-form [name=held][value=${held}]`).check();
  await page.locator('#search-value').fill(value);
  await page.locator('#search-form button[type=submit]').click();
  await page.locator('#search-status:not(:empty), #search-error:not([hidden])').first().waitFor();
}

/** The search's rows as shown: cells joined by tabs, as innerText gives a row. */
export const resultRows = (page: Page) => page.locator('#search-results tbody tr').allInnerTexts();

/** The text of the element that has the focus. */
export const focusedText = (page: Page) =>
  page.evaluate('document.activeElement ? document.activeElement.textContent : null');

/** axe-core's own build, run inside the page (evaluated over the DevTools protocol: the CSP stays). */
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * The WCAG 2.0 and 2.1 A and AA rules of axe-core on the page as it is shown: none may fail.
 * Each violation is given as its rule and the elements it found, to be read in the failure.
 */
export async function expectAccessible(page: Page): Promise<void> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  )) as AxeViolation[];
  expect(
    violations.map(
      (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
    ),
  ).toEqual([]);
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
