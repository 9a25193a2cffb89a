/**
 * Hostile input, property-based (fast-check), against DynamoDB Local:
 * - any string as a path id, through the real handlers: never a 5xx; a 400 exactly for the
 *   ids that are not canonical (SPEC 3.3), else a 200 or a 404; every answer per the contract;
 * - hostile import files (random JSON, wrong types, unknown fields, huge strings, deep nesting,
 *   invalid UTF-8, blank lines, CRLF): nothing is ever written, and every bad line, and only
 *   those, is reported as `line N: <path>: <reason>`.
 * A file of 10^6 lines: million-lines.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiHandler } from '../../functions/shared/http.ts';
import { importFile, InvalidFileError } from '../../import/direct-import.ts';
import { MAX_LINE_BYTES } from '../../import/lines.ts';
import { customer, line, transaction } from '../fixtures.ts';
import { createContract } from '../support/contract.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { MANY_READS, testHandlers } from '../support/handlers.ts';
import { apiEvent, lambdaContext } from '../support/events.ts';

const SEEDED = 20;
const MAX_ID = 2n ** 53n - 1n;
const contract = createContract();
const dir = mkdtempSync(join(tmpdir(), 'hostile-'));
let table: Awaited<ReturnType<typeof startTestTable>>;
let getTransaction: ApiHandler;
let getCustomer: ApiHandler;
let files = 0;

/** Property runs made, per property, for the report at the end. */
const runs: Record<string, number> = {};
const count = (name: string) => void (runs[name] = (runs[name] ?? 0) + 1);

async function itemCount(): Promise<number> {
  const result = await table.client.send(
    new ScanCommand({ TableName: table.tableName, Select: 'COUNT' }),
  );
  return result.Count ?? 0;
}

async function runImport(content: Buffer | string) {
  const path = join(dir, `import-${files++}.jsonl`);
  writeFileSync(path, content);
  const problems: string[] = [];
  try {
    await importFile(path, {
      client: table.client,
      tableName: table.tableName,
      displayTimeZone: 'UTC',
      onProblem: (p) => problems.push(p),
    });
    return { problems, error: undefined };
  } catch (error) {
    return { problems, error };
  } finally {
    rmSync(path, { force: true });
  }
}

beforeAll(async () => {
  table = await startTestTable('hostile-table');
  ({ transaction: getTransaction, customer: getCustomer } = testHandlers(
    table.endpoint,
    table.tableName,
    MANY_READS,
  ));
  const seeded = await runImport(
    Array.from({ length: SEEDED }, (_, i) => [
      line('transaction', transaction({ id: i + 1 })),
      line('customer', customer({ id: i + 1 })),
    ])
      .flat()
      .join('\n'),
  );
  expect(seeded.problems).toEqual([]);
}, 90_000);

afterAll(async () => {
  await table?.stop();
  rmSync(dir, { recursive: true, force: true });
  console.log(`property runs: ${JSON.stringify(runs)}`);
});

describe('any string as a path id (SPEC 3.3, 4)', () => {
  /** The SPEC's rule, written independently of core/ids.ts. */
  const canonical = (s: string) => /^[1-9][0-9]*$/.test(s) && BigInt(s) <= MAX_ID;

  const ids = fc.oneof(
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
    { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }), weight: 3 },
    { arbitrary: fc.stringMatching(/^[-+]?[0-9]{0,20}(\.[0-9]*)?([eE][-+]?[0-9]+)?$/), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: 2 * SEEDED }).map(String), weight: 3 },
    { arbitrary: fc.bigInt({ min: MAX_ID - 3n, max: MAX_ID + 3n }).map(String), weight: 1 },
    { arbitrary: fc.bigInt({ min: 1n, max: 10n ** 30n }).map(String), weight: 1 },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom(' ', '+', '0', '\t', '\n', '\u00a0', '\u0000', '%20', '/', '..'),
          fc.integer({ min: 1, max: SEEDED }).map(String),
          fc.boolean(),
        )
        .map(([junk, id, before]) => (before ? junk + id : id + junk)),
      weight: 2,
    },
    {
      // Digits that are not ASCII: full-width, Arabic-Indic, Devanagari, superscript.
      arbitrary: fc.constantFrom('１', '١', '१', '¹', '𝟏', 'Ⅰ').map((d) => `${d}2`),
      weight: 1,
    },
    { arbitrary: fc.string({ minLength: 5_000, maxLength: 20_000 }), weight: 1 },
  );

  test.each([
    ['transaction', 'GET /transactions/{transaction_id}', 'transaction_id', '/transactions/x'],
    ['customer', 'GET /customers/{customer_id}', 'customer_id', '/customers/x'],
  ] as const)(
    '%s: never a 5xx; 400 exactly for non-canonical ids',
    async (entity, routeKey, name, path) => {
      const handler = entity === 'transaction' ? getTransaction : getCustomer;
      const Entity = entity === 'transaction' ? 'Transaction' : 'Customer';
      await fc.assert(
        fc.asyncProperty(ids, async (id) => {
          count(`path id (${entity})`);
          const result = await handler(apiEvent(routeKey, { [name]: id }), lambdaContext);
          const observed = {
            status: result.statusCode,
            headers: result.headers,
            body: result.body,
          };
          expect(contract.validate('GET', path, observed)).toEqual([]);
          expect(result.statusCode).toBeLessThan(500);
          if (!canonical(id)) {
            expect(result.statusCode).toBe(400);
            expect(result.body).toBe(`{"message":"Invalid ${entity} id","data":null}`);
          } else if (BigInt(id) <= BigInt(SEEDED)) {
            expect(result.statusCode).toBe(200);
            expect(JSON.parse(result.body).data.id).toBe(Number(id));
          } else {
            expect(result.statusCode).toBe(404);
            expect(result.body).toBe(`{"message":"${Entity} not found","data":null}`);
          }
        }),
        { numRuns: 400 },
      );
    },
  );

  test('no path parameter at all is a 400', async () => {
    const event = apiEvent('GET /transactions/{transaction_id}', {});
    delete (event as { pathParameters?: unknown }).pathParameters;
    expect((await getTransaction(event, lambdaContext)).statusCode).toBe(400);
  });
});

describe('hostile import files (SPEC 6): nothing written, every bad line reported', () => {
  type Entity = 'transaction' | 'customer';
  /** A line, and what a report about it must look like (undefined: a valid or blank line). */
  interface Entry {
    bytes: Buffer;
    bad: boolean;
    /** Every report about this line has one of these field paths as a prefix. */
    paths?: string[];
    /** Text that must not appear in any report (a value from the line). */
    secret?: string;
  }
  const recordOf = (entity: Entity, id: number) =>
    entity === 'transaction' ? transaction({ id }) : customer({ id });
  const TEXT_FIELDS: Record<Entity, string[]> = {
    transaction: ['created_at', 'total_amount'],
    customer: ['first_name', 'last_name', 'tin', 'sss', 'id_no', 'current_address'],
  };
  const entity = fc.constantFrom<Entity>('transaction', 'customer');
  const fieldOf = (e: Entity) => fc.constantFrom(...Object.keys(recordOf(e, 1)));
  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  /** An entry that prints short in a counterexample, however long its line. */
  const entry = (e: Entry): Entry =>
    Object.assign(e, {
      [fc.toStringMethod]: () =>
        `${e.bad ? 'bad' : 'good'} line of ${e.bytes.length} bytes: ${JSON.stringify(e.bytes.subarray(0, 120).toString('latin1'))}`,
    });

  const randomJson = fc.jsonValue({ maxDepth: 4 }).map((value): Entry => ({
    bytes: utf8(JSON.stringify(value)),
    bad: true,
    paths: ['$', 'transaction', 'customer'],
  }));

  const wrongType = entity
    .chain((e) =>
      fc.tuple(
        fc.constant(e),
        fieldOf(e),
        fc.oneof(
          fc.boolean(),
          fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
          fc.dictionary(fc.constantFrom('zz', 'unexpected'), fc.jsonValue({ maxDepth: 2 }), {
            minKeys: 1,
          }),
          fc.constant(undefined), // the field is missing
        ),
      ),
    )
    .map(([e, field, value]): Entry => {
      const record: Record<string, unknown> = recordOf(e, 1);
      if (value === undefined) delete record[field];
      else record[field] = value;
      return { bytes: utf8(line(e, record)), bad: true, paths: [`${e}.${field}`] };
    });

  const unknownField = entity.map((e): Entry => ({
    bytes: utf8(line(e, { ...recordOf(e, 1), password: 'hunter2-secret' })),
    bad: true,
    paths: [`${e}.password`],
    secret: 'hunter2-secret',
  }));

  const hugeString = fc
    .tuple(entity, fc.integer({ min: 2_001, max: 300_000 }), fc.constantFrom('a', 'é', '東', '😀'))
    .chain(([e, length, char]) =>
      fc.tuple(
        fc.constant(e),
        fc.constantFrom(...TEXT_FIELDS[e]),
        fc.constant(length),
        fc.constant(char),
      ),
    )
    .map(([e, field, length, char]): Entry => {
      const value = `HUGE${char.repeat(length)}`;
      const bytes = utf8(line(e, { ...recordOf(e, 1), [field]: value }));
      const tooLong = bytes.length > MAX_LINE_BYTES;
      return { bytes, bad: true, paths: tooLong ? ['$'] : [`${e}.${field}`], secret: 'HUGE' };
    });

  const overLongLine = fc
    .integer({ min: MAX_LINE_BYTES + 1, max: MAX_LINE_BYTES + 50_000 })
    .map((length): Entry => ({ bytes: Buffer.alloc(length, 'x'), bad: true, paths: ['$'] }));

  const deepNesting = fc
    .tuple(entity, fc.integer({ min: 1, max: 200_000 }), fc.boolean())
    .map(([e, depth, inField]): Entry => {
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      if (!inField) return { bytes: utf8(`{"${e}":${nested}}`), bad: true, paths: ['$', e] };
      const field = TEXT_FIELDS[e][0]!;
      const text = line(e, { ...recordOf(e, 1), [field]: '@@NESTED@@' }).replace(
        '"@@NESTED@@"',
        nested,
      );
      return { bytes: utf8(text), bad: true, paths: ['$', `${e}.${field}`] };
    });

  const invalidUtf8 = fc
    .tuple(
      entity,
      fc.constantFrom(
        [0xff],
        [0xc3, 0x28],
        [0xe2, 0x82],
        [0xed, 0xa0, 0x80],
        [0xc0, 0xaf],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
      ),
    )
    .map(([e, sequence]): Entry => {
      const text = line(e, { ...recordOf(e, 1), [TEXT_FIELDS[e][0]!]: 'before|after' });
      const [head, tail] = text.split('|') as [string, string];
      return {
        bytes: Buffer.concat([utf8(head), Buffer.from(sequence), utf8(tail)]),
        bad: true,
        paths: ['$'],
      };
    });

  const twoKeys = fc.constant<Entry>({
    bytes: utf8(JSON.stringify({ transaction: transaction(), customer: customer() })),
    bad: true,
    paths: ['$'],
  });

  const bad = fc
    .oneof(
      { arbitrary: randomJson, weight: 3 },
      { arbitrary: wrongType, weight: 4 },
      { arbitrary: unknownField, weight: 1 },
      { arbitrary: hugeString, weight: 1 },
      { arbitrary: overLongLine, weight: 1 },
      { arbitrary: deepNesting, weight: 1 },
      { arbitrary: invalidUtf8, weight: 2 },
      { arbitrary: twoKeys, weight: 1 },
    )
    .map(entry);
  /** Valid lines get ids of their own later; blank lines are skipped by the import. */
  const valid = entity.map((e) => ({ kind: 'valid' as const, entity: e }));
  const blank = fc.constantFrom('', '   ', '\t').map((text) => ({ kind: 'blank' as const, text }));
  const file = fc.record({
    entries: fc
      .array(
        fc.oneof(
          { arbitrary: bad, weight: 2 },
          { arbitrary: valid, weight: 3 },
          { arbitrary: blank, weight: 1 },
        ),
        {
          minLength: 1,
          maxLength: 12,
        },
      )
      .filter((entries) => entries.some((e) => 'bad' in e)),
    crlf: fc.boolean(),
    finalNewline: fc.boolean(),
  });

  test('nothing is written; the bad lines and only they are reported, by number, path and reason', async () => {
    const before = await itemCount();
    let nextId = 100_000;
    await fc.assert(
      fc.asyncProperty(file, async ({ entries, crlf, finalNewline }) => {
        count('import file');
        const lines: Entry[] = entries.map((entry) =>
          'bytes' in entry
            ? entry
            : entry.kind === 'blank'
              ? { bytes: utf8(entry.text), bad: false }
              : { bytes: utf8(line(entry.entity, recordOf(entry.entity, nextId++))), bad: false },
        );
        const eol = utf8(crlf ? '\r\n' : '\n');
        const content = Buffer.concat([
          ...lines.flatMap((l, i) =>
            i < lines.length - 1 || finalNewline ? [l.bytes, eol] : [l.bytes],
          ),
        ]);
        const { problems, error } = await runImport(content);

        expect(error).toBeInstanceOf(InvalidFileError);
        const reported = new Map<number, string[]>();
        for (const problem of problems) {
          const m = /^line ([1-9][0-9]*): (\S+): (\S.*)$/.exec(problem);
          expect(m).not.toBeNull();
          expect(problem.length).toBeLessThan(300);
          const n = Number(m![1]);
          reported.set(n, [...(reported.get(n) ?? []), m![2]!]);
        }
        const badLines = lines.flatMap((l, i) => (l.bad ? [i + 1] : []));
        expect([...reported.keys()].sort((a, b) => a - b)).toEqual(badLines);
        for (const n of badLines) {
          const { paths, secret } = lines[n - 1]!;
          for (const path of reported.get(n)!)
            expect(
              paths!.some(
                (prefix) =>
                  path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`),
              ),
            ).toBe(true);
          if (secret) expect(problems.join('\n')).not.toContain(secret);
        }
        expect(await itemCount()).toBe(before);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
