/**
 * The import's parts (import/parts.ts): byte ranges that end at line breaks, each owning the lines
 * that start in it, with the file's own line numbers; the merged verdict the same for any cut.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { duplicateCheck, type Parsed, type RecordRef } from '../../import/checked-lines.ts';
import { linesOf, type Line } from '../../import/lines.ts';
import {
  checkPart,
  planParts,
  readStoredRecords,
  storedRecordLine,
  storedRecordsWriter,
  verifyParts,
  type CheckedPart,
} from '../../import/parts.ts';
import { createLineParser } from '../../import/records.ts';
import { createTimeCodec } from '../../core/times.ts';
import { customer, line, transaction } from '../fixtures.ts';

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect(lines: AsyncIterable<Line>): Promise<Line[]> {
  const out: Line[] = [];
  for await (const l of lines) out.push(l);
  return out;
}

/** Each part's lines, read from its byte range as the steps read it. */
async function partLines(bytes: Buffer, partBytes: number, chunk = 7) {
  const { parts } = await planParts(chunked(bytes, chunk), partBytes);
  const lines: Line[] = [];
  for (const part of parts)
    lines.push(
      ...(await collect(
        linesOf(
          chunked(bytes.subarray(part.start, part.end), 5),
          part.firstLine,
          undefined,
          part.start,
        ),
      )),
    );
  return { parts, lines };
}

test('parts cover the file, end just after a line break, and know their first line', async () => {
  const bytes = Buffer.from('aaaa\nbb\n\ncccccc\r\ndd');
  const { sha256, size, parts } = await planParts(chunked(bytes, 3), 4);
  expect(sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  expect(size).toBe(bytes.length);
  expect(parts).toEqual([
    { index: 0, start: 0, end: 5, firstLine: 1 },
    { index: 1, start: 5, end: 9, firstLine: 2 },
    { index: 2, start: 9, end: 17, firstLine: 4 },
    { index: 3, start: 17, end: 19, firstLine: 5 },
  ]);
  expect(await planParts(chunked(Buffer.alloc(0), 3), 4)).toMatchObject({ parts: [] });
});

test('any cut and any chunking gives the lines of the whole file, numbered as in it', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.oneof(fc.string(), fc.constant('\u00e9'), fc.constant('')), { maxLength: 12 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 1, max: 9 }),
      async (texts, newlineAtEnd, partBytes, chunk) => {
        const content = texts.join('\n') + (newlineAtEnd ? '\n' : '');
        const bytes = Buffer.from(content.replace(/\r/g, ''));
        const whole = await collect(linesOf(chunked(bytes, 64)));
        expect((await partLines(bytes, partBytes, chunk)).lines).toEqual(whole);
      },
    ),
  );
});

test('a line that is not UTF-8 keeps its number and its offset in the file in whichever part holds it', async () => {
  const bytes = Buffer.concat([
    Buffer.from('a\nb\n'),
    Buffer.from([0x7b, 0xc3, 0xa9, 0xff, 0x0a]),
    Buffer.from('c\n'),
  ]);
  const { parts, lines } = await partLines(bytes, 2);
  expect(parts.length).toBeGreaterThan(1);
  expect(lines).toEqual([
    { lineNo: 1, text: 'a' },
    { lineNo: 2, text: 'b' },
    {
      lineNo: 3,
      error: `is not valid UTF-8: first invalid byte at offset ${bytes.indexOf(0xff)} of the file (offsets from 0)`,
    },
    { lineNo: 4, text: 'c' },
  ]);
});

test('the verdict is the same however the file is cut: problems in file order, duplicates across parts', async () => {
  const parse = createLineParser(createTimeCodec('UTC'));
  const file = Buffer.from(
    [
      line('transaction', transaction({ id: 1 })),
      '{',
      line('transaction', transaction({ id: 2 })),
      line('transaction', transaction({ id: 1 })),
      JSON.stringify({ delete: { transaction: 2 } }),
      line('transaction', transaction({ id: 3, rate: 1 })),
    ].join('\n'),
  );
  const verdictFor = async (partBytes: number) => {
    const { parts } = await planParts(chunked(file, 100), partBytes);
    const checked: CheckedPart[] = [];
    // Parts finish in any order; Verify puts them back in file order.
    for (const part of [...parts].reverse())
      checked.push(
        await checkPart(
          part.index,
          linesOf(chunked(file.subarray(part.start, part.end), 50), part.firstLine),
          parse,
        ),
      );
    return { parts: parts.length, verdict: verifyParts(checked) };
  };
  const one = await verdictFor(file.length);
  const many = await verdictFor(1);
  expect([one.parts, many.parts]).toEqual([1, 6]);
  expect(many.verdict).toEqual(one.verdict);
  expect(one.verdict).toEqual({
    problems: [
      'line 2: $: is not valid JSON',
      'line 4: transaction.id: transaction 1 is already on line 1',
      'line 5: delete.transaction: transaction 2 is written on line 3 and deleted on line 5; a file may do only one',
      'line 6: transaction.rate: is not a known field',
    ],
    problemCount: 4,
    records: 4,
    // No files are looked up for a file with problems (CheckPart): none missing.
    warnings: [],
    warningCount: 0,
    lookupWarnings: [],
    lookupWarningCount: 0,
  });
});

test('the duplicate check tells ids apart up to 2^53-1, across shards and entities', () => {
  const check = duplicateCheck();
  const max = 2n ** 53n - 1n;
  const refs: RecordRef[] = [
    { entity: 'transaction', id: max, kind: 'put', lineNo: 1 },
    { entity: 'transaction', id: max - 1n, kind: 'put', lineNo: 2 },
    { entity: 'customer', id: max, kind: 'put', lineNo: 3 },
    { entity: 'transaction', id: 64n, kind: 'put', lineNo: 4 },
    { entity: 'transaction', id: 128n, kind: 'delete', lineNo: 5 },
  ];
  expect(refs.map(check)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  expect(check({ entity: 'transaction', id: max, kind: 'put', lineNo: 6 })).toEqual([
    'transaction.id',
    `transaction ${max} is already on line 1`,
  ]);
  expect(check({ entity: 'transaction', id: 128n, kind: 'put', lineNo: 7 })).toEqual([
    'transaction.id',
    'transaction 128 is deleted on line 5 and written on line 7; a file may do only one',
  ]);
});

test("the command's key under incoming/ reads the same URL-encoded or not (spaces, accents, plus signs made _)", async () => {
  const { incomingKey } = await import('../../commands/import/drop.ts');
  const key = incomingKey('/tmp/Branch 7 + Café (export).jsonl');
  expect(key).toMatch(/^incoming\/\d{8}T\d{9}Z-[0-9a-f]{8}-Branch_7___Caf___export_\.jsonl$/);
  expect(encodeURIComponent(key).replace(/%2F/g, '/')).toBe(key);
});

test('a checked record reads back from its stored line exactly: ids and integers as bigints, amounts as text, times as stored', async () => {
  const parse = createLineParser(createTimeCodec('Asia/Manila'));
  const lines = [
    line('transaction', transaction({ id: 9007199254740991, total_amount: '0.10' })),
    line('customer', customer({ id: 7, id_photo: 'id-photos/c 7 "front".jpg' })),
    JSON.stringify({ delete: { transaction: 5 } }),
  ];
  const checked: Parsed[] = [];
  const text = lines.map((l) => `${l}\n`).join('');
  await checkPart(0, linesOf(chunked(Buffer.from(text), 64), 40), parse, (r) => checked.push(r));
  expect(checked.map((r) => [r.kind, r.id, r.lineNo])).toEqual([
    ['put', 9007199254740991n, 40],
    ['put', 7n, 41],
    ['delete', 5n, 42],
  ]);
  const writer = storedRecordsWriter();
  for (const record of checked) writer.add(record);
  const { named, records } = await readStoredRecords(chunked(writer.bytes(), 13));
  const back: Parsed[] = [];
  for await (const record of records) back.push(record);
  // All but the parser's own `ok` flag.
  expect(back).toEqual(checked.map((r) => ({ ...r, ok: undefined })));
  // The wall time was stored as the UTC instant (Manila is UTC+8), not read again.
  expect((back[0] as { record: Record<string, unknown> }).record.created_at).toBe(
    '2023-09-15T02:01:02Z',
  );
  // The file keys the records name, known before the first record is read.
  expect(named).toEqual(new Set(['signatures/t-1.png', 'id-photos/c 7 "front".jpg']));

  // An object kept before its head named them reads the same, the keys not known.
  const old = await readStoredRecords(
    chunked(Buffer.from(checked.map(storedRecordLine).join('')), 5),
  );
  const oldBack: Parsed[] = [];
  for await (const record of old.records) oldBack.push(record);
  expect({ named: old.named, records: oldBack }).toEqual({ named: undefined, records: back });
});

test('a stored records object that is not what CheckPart wrote stops the write, naming the line', async () => {
  const read = async (text: string) => {
    const { records } = await readStoredRecords(chunked(Buffer.from(text), 8));
    for await (const _ of records) void _;
  };
  await expect(read('{"line":1,"put":"account","record":{"id":1}}\n')).rejects.toThrow(
    'stored record 1 names no entity',
  );
  await expect(
    read('{"line":1,"delete":"customer","id":1}\n{"line":2,"put":"customer"}\n'),
  ).rejects.toThrow('stored record 2 is neither a put nor a delete');
  await expect(
    read('{"named":"signatures/a.png"}\n{"line":1,"delete":"customer","id":1}\n'),
  ).rejects.toThrow('the file keys they name do not end');
});
