/**
 * SPEC 10 through the public routes of the local rig: what each lookup finds (the matching
 * rules, normalisation included), in which order, in pages with no duplicate and no gap; deletes
 * and renames; a customer's transactions; every refused parameter; and the audit trail, which
 * names the kind of lookup and the ids returned but never the value searched for.
 */
import { jest } from '@jest/globals';
import { readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';
import { parseExactJson } from '../../core/json.ts';
import { startLocalRig, type LocalRig } from '../../local/rig/rig.ts';
import { customer, line, transaction } from '../fixtures.ts';
import { importInto } from '../support/rig-import.ts';
import { testRigOptions } from '../support/shared-dynamodb.ts';

jest.setTimeout(120_000);

let dir: string;
let rig: LocalRig;
let teller: string;
let compliance: string;
let imports = 0;

/** Every value searched for below: none may reach the audit trail. */
const SEARCHED = new Set<string>();

async function importLines(lines: string[]): Promise<void> {
  const file = join(dir, `import-${(imports += 1)}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  await importInto(rig, [file]);
}

interface Answer {
  status: number;
  raw: string;
  body: { message: string; data: Record<string, unknown>[] | null; next?: string | null };
}

async function get(path: string, token = compliance): Promise<Answer> {
  const response = await fetch(`${rig.apiUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const raw = await response.text();
  return { status: response.status, raw, body: parseExactJson(raw) as Answer['body'] };
}

const PERSONAL = ['tin', 'sss', 'id_no', 'last_name', 'first_name'];

/** A lookup by these parameters (the personal ones remembered), expecting a 200. */
async function find(path: string, params: Record<string, string>, token = compliance) {
  for (const [name, value] of Object.entries(params))
    if (PERSONAL.includes(name)) SEARCHED.add(value);
  const answer = await get(`${path}?${new URLSearchParams(params)}`, token);
  expect([answer.status, answer.body.message]).toEqual([200, 'Ok']);
  return answer;
}

const ids = (answer: Answer) => answer.body.data!.map((s) => Number(s.id));

/** Every page of a lookup, following `next`: the ids in the order given. */
async function allPages(path: string, params: Record<string, string>, limit: number) {
  const seen: number[] = [];
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const answer = await find(path, {
      ...params,
      limit: String(limit),
      ...(cursor ? { cursor } : {}),
    });
    seen.push(...ids(answer));
    cursor = answer.body.next;
    pages += 1;
  } while (cursor);
  return { seen, pages };
}

const person = (id: number, first: string, last: string, more: Record<string, unknown> = {}) =>
  line(
    'customer',
    customer({
      id,
      first_name: first,
      last_name: last,
      tin: null,
      id_no: null,
      customer_risk_assessments: [],
      ...more,
    }),
  );

/** A transaction of customer `of` at 2024-01-01 + `minute` minutes, Manila time. */
const sale = (id: number, of: number, minute: number, more: Record<string, unknown> = {}) =>
  line(
    'transaction',
    transaction({
      id,
      receipt_no: 20240101000000 + id,
      customer: { id: of, first_name: 'Lookupfirst', email: 'lookup@example.test' },
      created_at: `2024-01-01 ${String(8 + Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00`,
      ...more,
    }),
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lookups-'));
  rig = await startLocalRig({ ...testRigOptions(dir), seedFile: false });
  [teller, compliance] = await Promise.all([
    rig.tokenFor('teller@example.com'),
    rig.tokenFor('compliance@example.com'),
  ]);
  await importLines([
    person(101, 'Juan', 'Dela Cruz', {
      tin: '123-456-789-000',
      sss: '34-1234567-8',
      id_no: 'p-1234567a',
    }),
    person(102, 'Juana', 'De la Cruz', { tin: '123456789' }),
    person(103, 'María', 'Peña', { tin: '123 456 789 001', id_no: 'N01-23-456789' }),
    person(104, 'JUAN', 'DELA-CRUZ', { tin: '987654321' }),
    person(105, 'Zed', 'Nobody'),
    // Namesakes with names as long as a record holds: their cursors are long too.
    ...[106, 107, 108].map((id) => person(id, 'Ñ'.repeat(200), `${'Ü'.repeat(199)}x`)),
    // 25 transactions of customer 101, two sharing a receipt number and a minute.
    ...Array.from({ length: 25 }, (_, k) => sale(201 + k, 101, k)),
    sale(300, 104, 6, { receipt_no: 20240101000207 }),
    sale(301, 999, 3),
  ]);
}, 120_000);

afterAll(async () => {
  await rig?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Find Transactions by Receipt', () => {
  test('equal receipt numbers, newest first then id descending, exactly the summary fields', async () => {
    const answer = await find('/transactions', { receipt_no: '20240101000207' }, teller);
    expect(ids(answer)).toEqual([300, 207]);
    expect(answer.body.next).toBeNull();
    // The summary of SPEC 10, its fields in its order, times in Manila, amounts as strings.
    expect(answer.raw).toContain(
      '{"id":207,"receipt_no":20240101000207,"created_at":"2024-01-01 08:06:00",' +
        '"branch":{"id":3,"name":"Test Branch"},"customer":{"id":101,"first_name":"Lookupfirst"},' +
        '"type":{"value":0,"description":"Buy"},"total_amount":"1250.00"}',
    );
  });

  test('nothing matches: 200 with an empty list, not a 404', async () => {
    const answer = await find('/transactions', { receipt_no: '1' }, teller);
    expect(answer.body).toEqual({ message: 'Ok', data: [], next: null });
  });

  test("the teller may not find customers, nor list a customer's transactions: 403", async () => {
    for (const path of ['/customers?last_name=Cruz', '/customers/101/transactions'])
      expect(await get(path, teller)).toMatchObject({
        status: 403,
        body: { message: 'Forbidden', data: null },
      });
  });
});

describe('Find Customers', () => {
  test('by TIN: a prefix of 9 finds it with and without its branch code; names order the list', async () => {
    // delacruz: juan (101), juan (104: TIN 987...), juana (102); then pena (103).
    expect(ids(await find('/customers', { tin: '123-456-789' }))).toEqual([101, 102, 103]);
    expect(ids(await find('/customers', { tin: '123456789000' }))).toEqual([101]);
    expect(ids(await find('/customers', { tin: '123 456 789 00' }))).toEqual([101, 103]);
    expect(ids(await find('/customers', { tin: '12345678900099' }))).toEqual([]);
  });

  test('by SSS and ID number, whole, whatever the separators and case', async () => {
    expect(ids(await find('/customers', { sss: '3412345678' }))).toEqual([101]);
    expect(ids(await find('/customers', { sss: '34-1234567' }))).toEqual([]);
    expect(ids(await find('/customers', { id_no: 'P1234567A' }))).toEqual([101]);
    expect(ids(await find('/customers', { id_no: 'n0123456789' }))).toEqual([103]);
  });

  test.each(['Dela Cruz', 'DELA CRUZ', 'dela-cruz', 'De la Cruz', 'Délà  Crúz'])(
    'by last name %p: one name, namesakes by first name then id',
    async (last) => {
      expect(ids(await find('/customers', { last_name: last }))).toEqual([101, 104, 102]);
    },
  );

  test('ñ is n, accents go; a first name matches its beginning', async () => {
    expect(ids(await find('/customers', { last_name: 'PENA' }))).toEqual([103]);
    expect(ids(await find('/customers', { last_name: 'Peña', first_name: 'mar' }))).toEqual([103]);
    expect(ids(await find('/customers', { last_name: 'dela cruz', first_name: 'JUAN' }))).toEqual([
      101, 104, 102,
    ]);
    expect(ids(await find('/customers', { last_name: 'dela cruz', first_name: 'juana' }))).toEqual([
      102,
    ]);
    expect(ids(await find('/customers', { last_name: 'cruz' }))).toEqual([]);
  });

  test('a customer summary: exactly its fields, in order', async () => {
    const answer = await find('/customers', { last_name: 'Nobody' });
    expect(answer.raw).toBe(
      '{"message":"Ok","data":[{"id":105,"first_name":"Zed","middle_name":"Testmiddle",' +
        '"last_name":"Nobody","date_of_birth":"1990-05-14T00:00:00.000000Z",' +
        '"assessment_risk":{"value":0,"description":"Low Risk"},' +
        '"last_transaction_datetime":"2023-09-15 10:01:02"}],"next":null}',
    );
  });
});

test('pages of namesakes with the longest names: every cursor taken', async () => {
  const { seen, pages } = await allPages('/customers', { last_name: `${'U'.repeat(199)}X` }, 1);
  expect([pages, seen]).toEqual([3, [106, 107, 108]]);
});

describe("A Customer's Transactions", () => {
  test('three pages of 10: newest first, no duplicate, no gap', async () => {
    const { seen, pages } = await allPages('/customers/101/transactions', {}, 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, k) => 225 - k));
  });

  test('the limit may change from page to page', async () => {
    const first = await find('/customers/101/transactions', { limit: '3' });
    const second = await find('/customers/101/transactions', {
      limit: '20',
      cursor: first.body.next!,
    });
    expect([...ids(first), ...ids(second)]).toEqual(Array.from({ length: 23 }, (_, k) => 225 - k));
  });

  test('a customer with none: an empty list; an id nothing names: 404', async () => {
    expect((await find('/customers/105/transactions', {})).body.data).toEqual([]);
    expect(await get('/customers/999999/transactions')).toMatchObject({
      status: 404,
      body: { message: 'Customer not found', data: null },
    });
    // No customer record, but a transaction names it: listed.
    expect(ids(await find('/customers/999/transactions', {}))).toEqual([301]);
  });
});

describe('refused parameters: 400 naming the parameter', () => {
  test.each([
    ['/transactions', 'Invalid query: give one of receipt_no'],
    ['/transactions?receipt_no=007', 'Invalid receipt_no: must be a whole number'],
    ['/transactions?receipt_no=', 'Invalid receipt_no: empty'],
    ['/transactions?receipt_no=1&receipt_no=2', 'Invalid receipt_no: given more than once'],
    ['/transactions?receipt_no=1,2', 'Invalid receipt_no: must be a whole number'],
    ['/transactions?receipt_no=1&tin=123456789', 'Invalid parameter "tin": not one of'],
    ['/customers?first_name=Juan', 'Invalid query: give one of tin, sss, id_no, last_name'],
    ['/customers?tin=123456789&sss=1', 'Invalid sss: give only one of'],
    ['/customers?tin=12345678', 'Invalid tin: give at least 9 letters and digits'],
    ['/customers?tin=123456789&first_name=J', 'Invalid first_name: goes with last_name only'],
    ['/customers?last_name=---', 'Invalid last_name: has no letter or digit'],
    [`/customers?last_name=${'a'.repeat(201)}`, 'Invalid last_name: over 200 characters'],
    ['/customers?last_name=Cruz&limit=0', 'Invalid limit: must be a whole number from 1 to 100'],
    ['/customers?last_name=Cruz&limit=101', 'Invalid limit'],
    ['/customers?last_name=Cruz&cursor=abc', 'Invalid cursor'],
    ['/customers/007/transactions', 'Invalid customer id'],
    ['/customers/1/transactions?receipt_no=1', 'Invalid parameter "receipt_no"'],
  ])('%s', async (path, message) => {
    const answer = await get(path);
    expect(answer.status).toBe(400);
    expect(answer.body.message.startsWith(message)).toBe(true);
    expect(answer.body.data).toBeNull();
  });

  test("another lookup's cursor: 400", async () => {
    const page = await find('/customers/101/transactions', { limit: '1' });
    const other = await get(`/customers/102/transactions?cursor=${page.body.next!}`);
    expect(other).toMatchObject({ status: 400, body: { data: null } });
    expect(other.body.message).toMatch(/^Invalid cursor/);
  });
});

describe('indexes follow the table: deletes and renames', () => {
  test('a deleted customer is not found; a renamed one is found under the new name only', async () => {
    await importLines([
      JSON.stringify({ delete: { customer: 103 } }),
      person(102, 'Juana', 'Santos', { tin: '123456789' }),
      sale(210, 101, 9, { receipt_no: 20240101999999 }),
    ]);
    // DynamoDB Local updates its indexes with the write; in AWS within seconds (docs).
    expect(ids(await find('/customers', { tin: '123456789' }))).toEqual([101, 102]);
    expect(ids(await find('/customers', { id_no: 'N0123456789' }))).toEqual([]);
    expect(ids(await find('/customers', { last_name: 'dela cruz' }))).toEqual([101, 104]);
    expect(ids(await find('/customers', { last_name: 'santos' }))).toEqual([102]);
    expect(ids(await find('/transactions', { receipt_no: '20240101000210' }, teller))).toEqual([]);
    expect(ids(await find('/transactions', { receipt_no: '20240101999999' }, teller))).toEqual([
      210,
    ]);
  });

  test("a deleted customer's transactions are still listed", async () => {
    await importLines([JSON.stringify({ delete: { customer: 101 } })]);
    expect((await get('/customers/101')).status).toBe(404);
    expect(ids(await find('/customers/101/transactions', { limit: '100' }))).toHaveLength(25);
  });
});

describe('the audit trail', () => {
  test('one event per lookup with its kind and the ids returned, never a value searched for', async () => {
    await find('/customers', { last_name: 'Nobody' });
    const auditDir = join(dir, 'audit');
    const text = readdirSync(auditDir)
      .map((file) => readFileSync(join(auditDir, file), 'utf8'))
      .join('');
    const events = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.at(-1)).toMatchObject({
      route: 'GET /customers',
      entity: 'customer',
      lookup: 'name',
      recordIds: ['105'],
      status: 200,
    });
    expect(events.filter((e) => e.lookup === 'tin').length).toBeGreaterThan(3);
    // Every personal value searched for, as given and as normalised.
    // `npm run audit -- customer <id>` lists the lookups that returned the customer.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/audit.ts', 'customer', '105', '--json'],
      { cwd: PROJECT_ROOT, env: { ...CLEAN_ENV, LOCAL_DATA_DIR: dir } },
    );
    const listed = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(listed.filter((e) => e.lookup === 'name').length).toBeGreaterThanOrEqual(2);
    expect(
      listed.every(
        (e) => (e.recordIds as string[] | undefined)?.includes('105') || e.recordId === '105',
      ),
    ).toBe(true);
    expect(SEARCHED.size).toBeGreaterThan(15);
    for (const value of SEARCHED) {
      const forms = [
        value,
        value.toLowerCase(),
        value.replace(/[^\p{L}\p{N}]/gu, '').toUpperCase(),
      ];
      for (const form of forms)
        if (form.length > 3) expect([value, text.includes(form)]).toEqual([value, false]);
    }
  });
});
