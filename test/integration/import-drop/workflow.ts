/**
 * SPEC 9 locally, end to end through the drop (the stage's workflow definition run by a real ASL
 * interpreter with the functions' handler code): what the workflow guarantees however it runs.
 * The same object run again is one import; a step that keeps failing ends it as failed; what was
 * checked is what is written; the Maps keep to the concurrency; a report's problems are capped
 * and in file order. What a file does to the table and the audit: ./reports.ts.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { incomingKey } from '../../../commands/import/drop.ts';
import { putIntoLocalDrop } from '../../../commands/import/local-upload.ts';
import { localStepDeps, runWorkflow } from '../../../local/step-functions/import-runner.ts';
import { line } from '../../fixtures.ts';
import {
  drop,
  eventsOf,
  exact,
  file,
  readers,
  status,
  txn,
  useImportDrop,
} from '../../support/import-drop.ts';

useImportDrop();

test('the same object version run again (a repeated event, a redrive) is the same import: not written twice', async () => {
  const deps = localStepDeps(drop.target);
  try {
    const path = drop.fileOf(file([line('transaction', txn(51))]));
    const input = await putIntoLocalDrop(
      deps.s3,
      drop.target.importBucketName,
      path,
      incomingKey(path),
    );
    const first = await runWorkflow(deps, input);
    const again = await runWorkflow(deps, input);
    expect(again).toEqual(first);
    const events = eventsOf(first.importId);
    expect([events.started.length, events.ended.length, events.records.length]).toEqual([1, 1, 1]);
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}, 60_000);

test('a step that keeps failing ends the import as failed, with a report that says why, nothing written', async () => {
  const report = await drop.drop(file([line('transaction', txn(61))]), {
    wrap: {
      verify: () => async () => {
        throw new Error('verify cannot reach the bucket (test)');
      },
    },
  });
  expect(report.outcome).toBe('failed');
  expect(report.error).toContain('verify cannot reach the bucket (test)');
  expect(await status('transaction', 61)).toBe(404);
  const events = eventsOf(report.importId);
  expect(events.ended[0]).toMatchObject({ outcome: 'failed' });
}, 60_000);

test('what was checked is what is written: bytes put under the key after the check never reach the table', async () => {
  const deps = localStepDeps(drop.target);
  const checked = txn(71, { total_amount: '100.00' });
  try {
    const report = await drop.drop(file([line('transaction', checked)]), {
      wrap: {
        // The local bucket keeps no versions: the key now holds other bytes, one line not JSON.
        writePart: (write) => async (event: never) => {
          const { bucket, key } = event as { bucket: string; key: string };
          const other = file([line('transaction', txn(71, { total_amount: '999.99' })), '{']);
          await deps.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: other }));
          return write(event);
        },
      },
    });
    expect(report).toMatchObject({ outcome: 'imported', counts: { records: 1 } });
    expect((await readers.get('transaction', 71)).data).toEqual(exact(checked));
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}, 60_000);

test('the Maps keep to the concurrency: never more parts checked or written at once', async () => {
  let running = 0;
  const most = { checkPart: 0, writePart: 0 };
  const counted =
    (step: keyof typeof most) =>
    (handler: (input: never) => Promise<unknown>) =>
    async (input: never) => {
      running += 1;
      most[step] = Math.max(most[step], running);
      try {
        // Long enough for the interpreter to start every part it is allowed to.
        await new Promise((resolve) => setTimeout(resolve, 50));
        return await handler(input);
      } finally {
        running -= 1;
      }
    };
  const lines = Array.from({ length: 8 }, (_, i) => line('transaction', txn(81 + i)));
  const report = await drop.drop(file(lines), {
    partBytes: 1,
    concurrency: 3,
    wrap: { checkPart: counted('checkPart'), writePart: counted('writePart') },
  });
  expect(report).toMatchObject({ outcome: 'imported', counts: { records: 8 } });
  expect(most).toEqual({ checkPart: 3, writePart: 3 });
}, 60_000);

test('a report lists the first 1,000 problems in file order and the exact total, however the file is cut', async () => {
  const lines = Array.from({ length: 1_205 }, (_, i) =>
    i % 2 === 0 ? '{' : line('transaction', txn(80_000 + i)),
  );
  lines.push(line('transaction', txn(80_001))); // line 1206 repeats line 2
  const one = await drop.drop(file(lines));
  const many = await drop.drop(file(lines), { partBytes: 5_000, concurrency: 4 });
  for (const report of [one, many]) {
    expect(report.outcome).toBe('rejected');
    expect(report.problemCount).toBe(604);
  }
  const bad = file(Array.from({ length: 1_005 }, () => '{'));
  const capped = await drop.drop(bad, { partBytes: 500 });
  expect(capped.problemCount).toBe(1_005);
  expect(capped.problems).toHaveLength(1_000);
  expect(capped.problems[0]).toBe('line 1: $: is not valid JSON');
  expect(capped.problems[999]).toBe('line 1000: $: is not valid JSON');
  expect(many.problems).toEqual(one.problems);
  expect(one.problems.at(-1)).toBe(
    'line 1206: transaction.id: transaction 80001 is already on line 2',
  );
}, 60_000);
