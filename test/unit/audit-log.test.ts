/**
 * Issue 30: the local audit trail in day files (local/tools/audit-log.ts). A question about some days
 * reads those days' files only, counted in lines read (not timed: the machine may be busy); a
 * question with no range still reads every day; old days go after the stage's retention.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT_RETENTION_DAYS } from '../../core/retention.ts';
import {
  LOCAL_AUDIT_RETENTION_DAYS,
  appendAuditEvents,
  matches,
  auditEvents,
  dayOf,
  parseAuditTime,
  removeExpiredDays,
  type AnyAuditEvent,
  type AuditQuery,
  type AuditRange,
  type AuditReadStats,
} from '../../local/tools/audit-log.ts';

const DAY_MS = 86_400_000;
const DAYS = 400;
const PER_DAY = 500;
const FIRST_DAY = Date.UTC(2025, 0, 1);
/** Each day's line 0 reads transaction 7; the other lines read other transactions. */
const Q: AuditQuery = { by: 'transaction', id: '7' };

const day = (d: number) => new Date(FIRST_DAY + d * DAY_MS).toISOString().slice(0, 10);

let root: string;
let big: string;

/** 500 read events a day (400 days: 200,000), written as strings rather than one by one. */
function writeSyntheticTrail(dir: string, days = DAYS): void {
  mkdirSync(dir, { recursive: true });
  const tail =
    '"level":"INFO","message":"audit","requestId":"r","apiRequestId":"a",' +
    '"route":"GET /transactions/{transaction_id}","entity":"transaction",';
  const who = '"status":200,"sub":"s","username":"s","groups":[],"sourceIp":null,"userAgent":null}';
  for (let d = 0; d < days; d += 1) {
    const lines: string[] = [];
    for (let i = 0; i < PER_DAY; i += 1) {
      const ms = FIRST_DAY + d * DAY_MS + Math.floor((i * DAY_MS) / PER_DAY);
      const ts = new Date(ms).toISOString();
      lines.push(`{"timestamp":"${ts}",${tail}"recordId":"${i === 0 ? 7 : 1000 + i}",${who}`);
    }
    writeFileSync(join(dir, `${day(d)}.jsonl`), `${lines.join('\n')}\n`);
  }
}

async function read(trail: string, range: AuditRange = {}) {
  const stats: AuditReadStats = { files: 0, lines: 0 };
  const events: AnyAuditEvent[] = [];
  for await (const event of auditEvents(trail, Q, { range, stats })) events.push(event);
  return { stats, days: events.map((e) => e.timestamp.slice(0, 10)) };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'audit-log-'));
  big = join(root, 'big', 'audit');
  writeSyntheticTrail(big);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('reading: lines read are those of the days asked for', () => {
  test('--since the last day: its one file, 500 of the 200,000 lines', async () => {
    const { stats, days } = await read(big, { since: parseAuditTime(day(DAYS - 1), 'since')! });
    expect(stats).toEqual({ files: 1, lines: PER_DAY });
    expect(days).toEqual([day(DAYS - 1)]);
  });

  test('a range of times over three days: three files read, events held to the instants', async () => {
    const since = parseAuditTime(`${day(100)}T00:00:00.001Z`, 'since')!;
    const until = parseAuditTime(day(102), 'until')!;
    const { stats, days } = await read(big, { since, until });
    expect(stats).toEqual({ files: 3, lines: 3 * PER_DAY });
    // Day 100's read of transaction 7 was at 00:00:00.000, before the range.
    expect(days).toEqual([day(101), day(102)]);
  });

  test('no range: every day is read, oldest first (a 20-day trail: reading 400 takes seconds)', async () => {
    const small = join(root, 'small', 'audit');
    writeSyntheticTrail(small, 20);
    const { stats, days } = await read(small);
    expect(stats).toEqual({ files: 20, lines: 20 * PER_DAY });
    expect(days).toEqual(Array.from({ length: 20 }, (_, d) => day(d)));
  });

  test('a one-file trail is read whole, its events held to the range; no trail, nothing', async () => {
    const file = join(root, 'legacy.jsonl');
    writeFileSync(file, readFileSync(join(big, `${day(0)}.jsonl`)));
    const { stats, days } = await read(file, { since: parseAuditTime(day(1), 'since')! });
    expect(stats).toEqual({ files: 1, lines: PER_DAY });
    expect(days).toEqual([]);
    expect(await read(join(root, 'none'))).toEqual({ stats: { files: 0, lines: 0 }, days: [] });
  });
});

describe('writing', () => {
  const event = (timestamp: string, recordId: string) => ({ timestamp, recordId });

  test('each event into the file of its UTC day, in order; a .jsonl trail is one file', () => {
    const dir = join(root, 'write', 'audit');
    appendAuditEvents(dir, [
      event('2026-03-01T23:59:59.999Z', '1'),
      event('2026-03-02T00:00:00.000Z', '2'),
      event('2026-03-01T23:59:59.999Z', '3'),
    ]);
    appendAuditEvents(dir, [event('2026-03-02T00:00:01.000Z', '4')]);
    const ids = (name: string) =>
      readFileSync(join(dir, name), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { recordId: string }).recordId);
    expect(readdirSync(dir).sort()).toEqual(['2026-03-01.jsonl', '2026-03-02.jsonl']);
    expect(ids('2026-03-01.jsonl')).toEqual(['1', '3']);
    expect(ids('2026-03-02.jsonl')).toEqual(['2', '4']);

    const one = join(root, 'write', 'one.jsonl');
    appendAuditEvents(one, [event('2026-03-01T00:00:00.000Z', '1')]);
    appendAuditEvents(one, [event('2026-03-02T00:00:00.000Z', '2')]);
    expect(readFileSync(one, 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });

  test('a trail removed while the writer runs (a cleared .local/) is made again', () => {
    const dir = join(root, 'cleared', 'audit');
    appendAuditEvents(dir, [event('2026-03-01T10:00:00.000Z', '1')]);
    rmSync(join(root, 'cleared'), { recursive: true });
    appendAuditEvents(dir, [event('2026-03-01T11:00:00.000Z', '2')]);
    expect(readFileSync(join(dir, '2026-03-01.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(
      1,
    );
  });

  test('retention: day files older than the stage keeps audit events go, nothing else', () => {
    expect(LOCAL_AUDIT_RETENTION_DAYS).toBe(AUDIT_RETENTION_DAYS);
    const dir = join(root, 'retention');
    mkdirSync(dir);
    const now = Date.UTC(2031, 0, 1, 12);
    const ago = (days: number) => dayOf(new Date(now - days * DAY_MS).toISOString());
    const kept = [`${ago(LOCAL_AUDIT_RETENTION_DAYS)}.jsonl`, `${ago(1)}.jsonl`, 'notes.txt'];
    const gone = [`${ago(LOCAL_AUDIT_RETENTION_DAYS + 1)}.jsonl`, '2020-01-01.jsonl'];
    for (const name of [...kept, ...gone]) writeFileSync(join(dir, name), '\n');
    removeExpiredDays(dir, now);
    expect(readdirSync(dir).sort()).toEqual([...kept].sort());

    // The writer does it at its first write of a day (here: against the real clock).
    const live = join(root, 'live');
    mkdirSync(live);
    writeFileSync(join(live, '2000-01-01.jsonl'), '\n');
    appendAuditEvents(live, [event(new Date().toISOString(), '1')]);
    expect(existsSync(join(live, '2000-01-01.jsonl'))).toBe(false);
  });
});

test('--since / --until values: a UTC day (whole) or an ISO time with its zone; else none', () => {
  expect(parseAuditTime('2026-01-31', 'since')?.toISOString()).toBe('2026-01-31T00:00:00.000Z');
  expect(parseAuditTime('2026-01-31', 'until')?.toISOString()).toBe('2026-01-31T23:59:59.999Z');
  expect(parseAuditTime('2026-01-31T09:00+02:00', 'since')?.toISOString()).toBe(
    '2026-01-31T07:00:00.000Z',
  );
  expect(parseAuditTime('2026-01-31T09:00:00.5Z', 'until')?.toISOString()).toBe(
    '2026-01-31T09:00:00.500Z',
  );
  for (const value of [
    '2026-02-30',
    '2026-1-31',
    '2026-01-31T09:00:00',
    '2026-01-31 09:00Z',
    'yesterday',
    '',
  ])
    expect(parseAuditTime(value, 'since')).toBeUndefined();
});

describe("SPEC 10: a record's events include the lookups that returned it", () => {
  const event = (fields: Partial<AnyAuditEvent> & Record<string, unknown>) =>
    ({
      timestamp: '2025-01-01T00:00:00.000Z',
      level: 'INFO',
      message: 'audit',
      requestId: 'r',
      apiRequestId: null,
      route: 'GET /customers',
      entity: 'customer',
      recordId: null,
      status: 200,
      sub: 's',
      username: 'u',
      groups: [],
      sourceIp: null,
      userAgent: null,
      ...fields,
    }) as AnyAuditEvent;
  const customer42: AuditQuery = { by: 'customer', id: '42' };
  const transaction42: AuditQuery = { by: 'transaction', id: '42' };

  test("a lookup that returned it, and a listing of a customer's transactions", () => {
    const found = event({ lookup: 'name', recordIds: ['7', '42'] });
    const listing = event({
      route: 'GET /customers/{customer_id}/transactions',
      entity: 'transaction',
      lookup: 'customer_id',
      recordId: '42',
      recordIds: ['9'],
    });
    expect([matches(found, customer42), matches(listing, customer42)]).toEqual([true, true]);
    // The listing names customer 42, not transaction 42; it returned transaction 9.
    expect(matches(listing, transaction42)).toBe(false);
    expect(matches(listing, { by: 'transaction', id: '9' })).toBe(true);
  });

  test('not a lookup that returned others, nor an id that only begins the same', () => {
    expect(matches(event({ lookup: 'tin', recordIds: ['420', '142'] }), customer42)).toBe(false);
    expect(
      matches(
        event({ lookup: 'receipt_no', entity: 'transaction', recordIds: ['42'] }),
        customer42,
      ),
    ).toBe(false);
  });
});
