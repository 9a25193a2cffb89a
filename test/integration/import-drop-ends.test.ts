/**
 * How an import through the local drop ends when it cannot end whole (SPEC 9): a part that
 * stops at its time limit or whose writes keep failing leaves a report and an "import ended"
 * event that count every record written before it stopped, by every part, finished or not, and
 * say which parts were written; nothing of a stopped part is written after; the same file put
 * again imports whole. And keys as S3 events deliver them: URL-encoded or not.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { MiddlewareStack } from '@smithy/types';
import { WRITE_STOP_MARGIN_MS } from '../../import/steps/write-part.ts';
import { type ExecutionInput } from '../../import/steps/step.ts';
import { writeSlots } from '../../import/write-records.ts';
import { localStepDeps, runWorkflow } from '../../local/step-functions/import-runner.ts';
import { line, transaction } from '../fixtures.ts';
import { dropForTests } from '../support/drop.ts';

const env = dropForTests();

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const linesOf = (txnIds: number[]) =>
  `${txnIds.map((id) => line('transaction', transaction({ id, signature: null }))).join('\n')}\n`;
/** Bytes per part so that each part holds `records` of these (same-length) lines. */
const partBytesFor = (records: number) => (linesOf([70_000]).length + 1) * records - 1;

/** The records this import's audit events say were written, each once. */
const auditedRecords = (importId: string) =>
  new Set(
    env.drop
      .auditEvents()
      .filter((e) => e.importId === importId && e.kind === 'record')
      .map((e) => `${String(e.entity)} ${String(e.recordId)}`),
  );
const endedEvent = (importId: string) =>
  env.drop.auditEvents().find((e) => e.importId === importId && e.kind === 'import-ended');

/** Each write to the table delayed, so that a part takes a while; `refuse` fails them all. */
function slowTable(deps: ReturnType<typeof localStepDeps>, delayMs: number) {
  const table = { refuseAfter: Number.POSITIVE_INFINITY, writes: 0, writesAfterStop: 0 };
  (deps.client.middlewareStack as MiddlewareStack<object, object>).add(
    (next, context) => async (args) => {
      const name = (context as { commandName?: string }).commandName ?? '';
      if (/UpdateItem/.test(name)) {
        table.writes += 1;
        if (table.writes > table.refuseAfter)
          throw Object.assign(new Error('the table refused a write (test)'), { name: 'Refused' });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
      return next(args);
    },
    { step: 'initialize', name: 'slowTable' },
  );
  return table;
}

test('a part stopped at its time limit: the report and end event count what every part wrote, and the same file again imports whole', async () => {
  // Three parts of 80 records, each written one group (25 records) at a time, slowly: a group's
  // writes wait 600 ms together, so part 1's four groups need 2.4 s at the least, and it cannot
  // end whole within the 1.5 s it is given, however fast the machine.
  const partBytes = partBytesFor(80);
  const deps = { ...localStepDeps(env.drop.target, partBytes), writeConcurrency: 1 };
  const table = slowTable(deps, 600);
  const txnIds = ids(71_000, 240);
  let stoppedAt: number | undefined;
  try {
    const input = await env.drop.upload(deps, linesOf(txnIds));
    const report = await runWorkflow(deps, input, {
      concurrency: 2,
      wrap: {
        // Part 1 is told it has 1.5 s left past its stop margin, as Lambda's context would say.
        writePart: (h) => async (event, context, signal) => {
          const part = (event as { part: { index: number } }).part.index;
          if (part !== 1) return h(event, context, signal);
          const deadline = Date.now() + WRITE_STOP_MARGIN_MS + 1500;
          try {
            return await h(
              event,
              { getRemainingTimeInMillis: () => deadline - Date.now() },
              signal,
            );
          } finally {
            stoppedAt = table.writes;
          }
        },
      },
    });
    expect(report.outcome).toBe('failed');
    expect(report.error).toMatch(/^ImportStopped: part 1 stopped .* before its time limit/);
    const written = auditedRecords(report.importId);
    expect(written.size).toBeGreaterThan(0);
    expect(written.size).toBeLessThan(txnIds.length);
    expect(report.counts.records).toBe(written.size);
    expect(report.counts.transactions).toBe(written.size);
    expect(report.parts!.total).toBeGreaterThan(2);
    expect(report.parts!.written).not.toContain(1);
    expect(endedEvent(report.importId)).toMatchObject({
      outcome: 'failed',
      counts: report.counts,
      parts: report.parts,
    });
    // Every record counted is in the table, whole.
    for (const entry of written) {
      const id = Number(entry.split(' ')[1]);
      expect((await env.readers.get('transaction', id)).status).toBe(200);
    }
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
  expect(stoppedAt).toBeDefined();

  const again = await env.drop.drop(linesOf(txnIds), { partBytes });
  expect(again).toMatchObject({ outcome: 'imported', counts: { records: txnIds.length } });
  for (const id of txnIds) expect((await env.readers.get('transaction', id)).status).toBe(200);
}, 120_000);

test('a part whose writes keep failing: its retries spent, the report counts what was written before, and no group is written after', async () => {
  // Three parts of 20 records (one group each), one group written at a time: the first group
  // (20 UpdateItems, one a record) goes in and 9 records of the next, every write after them fails.
  const deps = { ...localStepDeps(env.drop.target, partBytesFor(20)), writeSlots: writeSlots(1) };
  const table = slowTable(deps, 5);
  table.refuseAfter = 29;
  const txnIds = ids(72_000, 60);
  try {
    const input = await env.drop.upload(deps, linesOf(txnIds));
    const report = await runWorkflow(deps, input, { concurrency: 2 });
    expect(report.outcome).toBe('failed');
    expect(report.error).toMatch(/Refused: the table refused a write/);
    const written = auditedRecords(report.importId);
    // One part whole (about 20 records: parts end at a line's end), and the 9 of the next that
    // went in before the failure: each counted, none of the third.
    expect(written.size).toBe(29);
    expect(report.counts.records).toBe(written.size);
    expect(report.parts).toEqual({ total: 3, written: [expect.any(Number)] });
    expect(endedEvent(report.importId)).toMatchObject({ counts: report.counts });
    const refusedBefore = table.writes;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Nothing of the failed import runs on once its report is written.
    expect(table.writes).toBe(refusedBefore);
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}, 120_000);

describe('a key put by hand imports however its event spells it', () => {
  const names = ['july export.jsonl', 'rates+fees 2026.jsonl', 'überweisung ñ 東京.jsonl'];
  /** S3 notifications' form: each part URL-encoded, a space as `+`. */
  const encoded = (key: string) =>
    encodeURIComponent(key).replace(/%20/g, '+').replace(/%2F/g, '/');
  test.each(
    names.flatMap(
      (name, i) =>
        [
          [name, 'as stored', i * 2],
          [name, 'URL-encoded', i * 2 + 1],
        ] as const,
    ),
  )(
    '%s, delivered %s',
    async (name, form, n) => {
      const deps = localStepDeps(env.drop.target);
      const id = 73_000 + n;
      const key = `incoming/${form === 'URL-encoded' ? 'encoded' : 'stored'} ${name}`;
      try {
        const put = await deps.s3.send(
          new PutObjectCommand({
            Bucket: env.drop.target.importBucketName,
            Key: key,
            Body: `${line('transaction', transaction({ id, signature: null }))}\n`,
          }),
        );
        const input: ExecutionInput = {
          bucket: env.drop.target.importBucketName,
          key: form === 'URL-encoded' ? encoded(key) : key,
          versionId: put.VersionId ?? 'null',
          size: 0,
          requester: 'test',
          sourceIp: '127.0.0.1',
          s3RequestId: '',
          eventTime: new Date().toISOString(),
        };
        if (form === 'URL-encoded') expect(input.key).not.toBe(key);
        const report = await runWorkflow(deps, input);
        expect(report).toMatchObject({ outcome: 'imported', key, counts: { records: 1 } });
        expect((await env.readers.get('transaction', id)).status).toBe(200);
      } finally {
        deps.s3.destroy();
        deps.client.destroy();
      }
    },
    60_000,
  );
});
