/**
 * SPEC 9 locally, end to end through the drop: a file put into the local import bucket, the
 * stage's workflow definition run by a real ASL interpreter with the functions' handler code,
 * the report, the table read back through the real GET handlers, the audit events: what a file
 * does (records, deletes, problems, files named, re-uploads, parts), and the audit kept free of
 * record fields. The workflow's own guarantees: below.
 */
import { spawnSync } from 'node:child_process';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { dirname } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import type { Progress } from '../../import/progress.ts';
import { PREFIX, reportKey, workFolder } from '../../import/steps/work-folder.ts';
import type { ImportReport } from '../../import/steps/step.ts';
import { emptySummary } from '../../import/summary.ts';
import { IMPORT_RETENTION } from '../../core/retention.ts';
import { expireImportObjects } from '../../local/step-functions/import-bucket-lifecycle.ts';
import { s3Client } from '../../local/s3/s3-client.ts';
import { DEMO_OBJECT_KEYS } from '../../local/s3/s3-server.ts';
import { line } from '../fixtures.ts';
import {
  cust,
  drop,
  eventsOf,
  exact,
  file,
  readers,
  status,
  txn,
  useImportDrop,
} from '../support/import-drop.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';
import { localStepDeps, runWorkflow } from '../../local/step-functions/import-runner.ts';

useImportDrop();

test('a valid file is imported: every record reads back exactly, the report and audit events say so', async () => {
  const txns = [txn(11), txn(12, { total_amount: '0.01', attachment: null })];
  const custs = [cust(11), cust(12, { tin: null, customer_risk_assessments: [] })];
  const progress: Progress[] = [];
  const report = await drop.drop(
    file([...txns.map((t) => line('transaction', t)), ...custs.map((c) => line('customer', c))]),
    { onProgress: (p) => progress.push(p) },
  );
  // While writing, the progress line knows the file's total, all checked: 4 records.
  const writing = progress.filter((p) => p.phase === 'writing');
  expect(writing.length).toBeGreaterThan(0);
  expect(new Set(writing.map((p) => p.total))).toEqual(new Set([4]));
  expect(writing.at(-1)!.records).toBe(4);
  expect(report).toMatchObject({
    outcome: 'imported',
    counts: { records: 4, transactions: 2, customers: 2, deletes: 0, notFound: 0 },
    problems: [],
    problemCount: 0,
  });
  expect(report.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(report.key).toMatch(/^incoming\/.+\.jsonl$/);
  expect(Date.parse(report.endedAt)).toBeGreaterThanOrEqual(Date.parse(report.startedAt!));
  for (const t of txns)
    expect((await readers.get('transaction', t.id as number)).data).toEqual(exact(t));
  for (const c of custs)
    expect((await readers.get('customer', c.id as number)).data).toEqual(exact(c));

  const events = eventsOf(report.importId);
  expect(events.started).toHaveLength(1);
  expect(events.ended).toHaveLength(1);
  expect(events.started[0]).toMatchObject({
    message: 'import-audit',
    key: report.key,
    sha256: report.sha256,
    requester: expect.stringMatching(/^local:/),
    sourceIp: '127.0.0.1',
  });
  expect(events.ended[0]).toMatchObject({ outcome: 'imported', counts: report.counts });
  expect(events.records.map((e) => [e.entity, e.recordId, e.action, e.line]).sort()).toEqual(
    [
      ['customer', '11', 'put', 3],
      ['customer', '12', 'put', 4],
      ['transaction', '11', 'put', 1],
      ['transaction', '12', 'put', 2],
    ].sort(),
  );
}, 60_000);

test('a record naming a file the files bucket lacks is imported; the report warns with its line and key', async () => {
  const [present] = DEMO_OBJECT_KEYS; // put by the local S3 at start
  const missing = 'signatures/not put yet ü+1.png';
  const missingAttachment = 'attachments/not put yet ü+1.pdf';
  const report = await drop.drop(
    file([
      line('transaction', txn(921, { signature: present })),
      line('customer', cust(921, { id_photo: 'id-photos/never-put.png' })),
      line('transaction', txn(922, { signature: missing, attachment: missingAttachment })),
    ]),
    { checkFiles: true, partBytes: 1 }, // one line a part: warnings merged across parts
  );
  expect(report).toMatchObject({
    outcome: 'imported',
    counts: { records: 3 },
    problemCount: 0,
    warningCount: 3,
  });
  expect(report.warnings).toEqual([
    `line 2: id_photo: "id-photos/never-put.png" is not in the files bucket: its link answers 404 until the file is put there`,
    `line 3: signature: ${JSON.stringify(missing)} is not in the files bucket: its link answers 404 until the file is put there`,
    `line 3: attachment: ${JSON.stringify(missingAttachment)} is not in the files bucket: its link answers 404 until the file is put there`,
  ]);
  for (const id of [921, 922]) expect(await status('transaction', id)).toBe(200);
}, 60_000);

test('a TIN or SSS number of an unexpected shape, or a name no lookup finds: imported, warned of with its line', async () => {
  const report = await drop.drop(
    file([
      line('customer', cust(951, { tin: '123-456-789-000', sss: '34-1234567-8' })),
      line('customer', cust(952, { tin: '12-34', sss: 'ABC-1', last_name: '---' })),
      line('customer', cust(953, { tin: 'TIN 123456789 X' })),
    ]),
    { partBytes: 1 }, // one line a part: warnings merged across parts
  );
  expect(report).toMatchObject({
    outcome: 'imported',
    counts: { records: 3 },
    lookupWarningCount: 4,
  });
  expect(report.lookupWarnings).toEqual([
    'line 2: tin: is not 9 to 14 digits once separators are removed, and has fewer than 9 letters and digits: kept as given, no TIN lookup finds it',
    'line 2: sss: is not 10 digits once separators are removed: kept as given, and found by its letters and digits',
    'line 2: last_name: has no letter or digit: kept as given, no lookup finds it by this field',
    'line 3: tin: is not 9 to 14 digits once separators are removed: kept as given, and found by its letters and digits',
  ]);
  expect(await status('customer', 952)).toBe(200);
}, 60_000);

test('the report lists the files that replaced and deleted records no longer name; none is deleted', async () => {
  const [signature, idPhoto] = DEMO_OBJECT_KEYS;
  const first = await drop.drop(
    file([
      line('transaction', txn(941, { signature, attachment: 'attachments/941.pdf' })),
      line('customer', cust(941, { id_photo: idPhoto })),
    ]),
  );
  expect(first).toMatchObject({ outcome: 'imported', filesLeft: [], filesLeftCount: 0 });
  // The signature is kept, the attachment replaced; the customer deleted.
  const second = await drop.drop(
    file([
      line('transaction', txn(941, { signature, attachment: 'attachments/941-v2.pdf' })),
      JSON.stringify({ delete: { customer: 941 } }),
    ]),
  );
  expect(second).toMatchObject({ outcome: 'imported', filesLeftCount: 2 });
  expect(second.filesLeft).toEqual([
    'line 1: attachment: "attachments/941.pdf" is no longer named by transaction 941 (replaced): remove it from the files bucket unless another record names it',
    `line 2: id_photo: ${JSON.stringify(idPhoto)} is no longer named by customer 941 (deleted): remove it from the files bucket unless another record names it`,
  ]);
  // Left for the operator: the demo records still name the same photo.
  const s3 = s3Client(drop.s3.endpoint);
  try {
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: drop.s3.bucketName, Prefix: idPhoto }),
    );
    expect(listed.Contents?.map((o) => o.Key)).toEqual([idPhoto]);
  } finally {
    s3.destroy();
  }
}, 60_000);

test("the local import bucket keeps the stage's lifecycle: work files go with their import, uploads after 30 days", async () => {
  const s3 = s3Client(drop.s3.endpoint);
  const keys = async (prefix: string) =>
    (
      await s3.send(new ListObjectsV2Command({ Bucket: drop.s3.importBucketName, Prefix: prefix }))
    ).Contents?.map((o) => o.Key!) ?? [];
  try {
    const report = await drop.drop(
      file([line('transaction', txn(931)), line('customer', cust(931))]),
      {
        partBytes: 1,
      },
    );
    expect(report.outcome).toBe('imported');
    expect(await keys(workFolder(report.importId))).toEqual([]);
    expect(await keys(report.key)).toEqual([report.key]);
    expect(await keys(reportKey(report.importId))).toEqual([reportKey(report.importId)]);
    // A day past the uploads' retention: the upload goes, its report (kept 1,827 days) stays.
    const later = Date.now() + (IMPORT_RETENTION.filesDays + 1) * 86_400_000;
    await expireImportObjects(s3, drop.s3.importBucketName, later);
    expect(await keys(PREFIX.incoming)).toEqual([]);
    expect(await keys(reportKey(report.importId))).toEqual([reportKey(report.importId)]);
  } finally {
    s3.destroy();
  }
}, 60_000);

test('bad lines anywhere (first, last, not JSON, not UTF-8, the same id in two parts): nothing written, every problem with its line', async () => {
  const content = Buffer.concat([
    Buffer.from('{"transaction": \n'), // 1: not JSON
    Buffer.from(file([line('transaction', txn(21)), line('customer', cust(21))])), // 2, 3
    Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), // 4: not UTF-8
    Buffer.from(file([line('transaction', txn(22)), '', line('customer', cust(22))])), // 5, 6, 7
    Buffer.from(line('transaction', txn(21))), // 8: transaction 21 again, no newline at the end
  ]);
  // Parts of about one line each: line 8 is in another part than line 2.
  const report = await drop.drop(content, { partBytes: 64 });
  expect(report.outcome).toBe('rejected');
  expect(report.problems).toEqual([
    'line 1: $: is not valid JSON',
    `line 4: $: is not valid UTF-8: first invalid byte at offset ${content.indexOf(0xff)} of the file (offsets from 0)`,
    'line 8: transaction.id: transaction 21 is already on line 2',
  ]);
  expect(report.problemCount).toBe(3);
  expect(report.counts).toEqual({
    ...emptySummary(),
    records: 0,
    transactions: 0,
    customers: 0,
    deletes: 0,
    notFound: 0,
  });
  for (const [entity, id] of [
    ['transaction', 21],
    ['customer', 21],
    ['transaction', 22],
    ['customer', 22],
  ] as const)
    expect(await status(entity, id)).toBe(404);
  const events = eventsOf(report.importId);
  expect([events.started.length, events.ended.length, events.records.length]).toEqual([1, 1, 0]);
  expect(events.ended[0]).toMatchObject({ outcome: 'rejected', problems: 3 });

  // A bad field on the last line is reported with the file's line number too.
  const last = await drop.drop(
    file([line('transaction', txn(23)), line('transaction', txn(24, { rate: 1 }))]),
    { partBytes: 64 },
  );
  expect(last.problems).toEqual(['line 2: transaction.rate: is not a known field']);
  expect(await status('transaction', 23)).toBe(404);

  // SPEC 6: a file under another field's prefix, so a transaction never hands out an ID photo.
  const crossed = await drop.drop(
    file([
      line('transaction', txn(25, { signature: 'id-photos/customer-1.jpg' })),
      line('customer', cust(25, { id_photo: 'attachments/receipt.pdf' })),
    ]),
  );
  expect(crossed.problems).toEqual([
    'line 1: transaction.signature: must begin with signatures/, where signature files are kept: the function that serves this record may read no other key',
    'line 2: customer.id_photo: must begin with id-photos/, where id_photo files are kept: the function that serves this record may read no other key',
  ]);
  expect([await status('transaction', 25), await status('customer', 25)]).toEqual([404, 404]);
}, 60_000);

test('deletes remove records whole; a delete of nothing is counted', async () => {
  await drop.drop(file([line('transaction', txn(31)), line('customer', cust(31))]));
  const report = await drop.drop(
    file([
      JSON.stringify({ delete: { transaction: 31 } }),
      JSON.stringify({ delete: { customer: 31 } }),
      JSON.stringify({ delete: { customer: 39 } }),
    ]),
  );
  expect(report.counts).toEqual({
    ...emptySummary(),
    records: 0,
    transactions: 0,
    customers: 0,
    deletes: 3,
    notFound: 1,
    // The two files may be put within the same second locally (whole seconds, as in AWS).
    sameSecond: expect.any(Number),
  });
  expect(await status('transaction', 31)).toBe(404);
  expect(await status('customer', 31)).toBe(404);
  expect(eventsOf(report.importId).records.map((e) => e.action)).toEqual([
    'delete',
    'delete',
    'delete',
  ]);
}, 60_000);

test('a file re-uploaded ends in the same state and report', async () => {
  const content = file([
    line('transaction', txn(41)),
    line('customer', cust(41)),
    JSON.stringify({ delete: { transaction: 42 } }),
  ]);
  const first = await drop.drop(content);
  const before = [
    (await readers.get('transaction', 41)).data,
    (await readers.get('customer', 41)).data,
  ];
  const again = await drop.drop(content);
  expect(again.importId).not.toBe(first.importId);
  // A new upload: a new import, with a version of its own (within the same second as the first
  // or not: sameSecond says which).
  const comparable = (r: ImportReport) => ({
    ...r,
    counts: { ...r.counts, sameSecond: 0 },
    importId: 0,
    key: 0,
    startedAt: 0,
    endedAt: 0,
    version: 0,
  });
  expect(comparable(again)).toEqual(comparable(first));
  expect([
    (await readers.get('transaction', 41)).data,
    (await readers.get('customer', 41)).data,
  ]).toEqual(before);
}, 60_000);

test('a file in many parts gives exactly the report and table of the same file in one part', async () => {
  const lines = (base: number) => [
    ...Array.from({ length: 12 }, (_, i) =>
      line('transaction', txn(base + i, { total_amount: `${i}.00` })),
    ),
    ...Array.from({ length: 6 }, (_, i) => line('customer', cust(base + i))),
    JSON.stringify({ delete: { transaction: base + 90 } }),
  ];
  const one = await drop.drop(file(lines(100)));
  const many = await drop.drop(file(lines(200)), { partBytes: 300, concurrency: 4 });
  expect(many.counts).toEqual(one.counts);
  expect(many.outcome).toBe('imported');
  for (let i = 0; i < 12; i += 1)
    expect((await readers.get('transaction', 200 + i)).data).toEqual({
      ...(await readers.get('transaction', 100 + i)).data,
      id: BigInt(200 + i),
    });
  // The same bad file, cut in one part or many: the same problems, in the same order.
  const bad = file([
    line('transaction', txn(301, { rate: 1 })),
    ...lines(300).slice(1),
    line('customer', cust(302)),
    '{',
  ]);
  const badOne = await drop.drop(bad);
  const badMany = await drop.drop(bad, { partBytes: 200, concurrency: 3 });
  expect(badMany.problems).toEqual(badOne.problems);
  expect(badMany.problemCount).toBe(badOne.problemCount);
  expect(badOne.problems).toEqual([
    'line 1: transaction.rate: is not a known field',
    'line 20: customer.id: customer 302 is already on line 15',
    'line 21: $: is not valid JSON',
  ]);
  const events = eventsOf(many.importId);
  expect(events.records).toHaveLength(19);
  expect(events.started[0]!.parts).toBeGreaterThan(5);
}, 120_000);

test('no audit event carries a field of a record; npm run audit lists a record changes beside its reads', async () => {
  const personal = [
    'Testfirst',
    'Testlast',
    'person@example.test',
    '000-000-000-000',
    'X0000000',
    'Testville',
    '1 Test Street',
    'Test Teller',
  ];
  const text = JSON.stringify(drop.auditEvents());
  for (const value of personal) expect(text).not.toContain(value);

  const audit = spawnSync(process.execPath, ['bin/audit.ts', 'customer', '41'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...CLEAN_ENV, LOCAL_DATA_DIR: dirname(drop.auditFile) },
    timeout: 60_000,
  });
  expect(audit.status).toBe(0);
  const listed = audit.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(listed.map((e) => [e.kind, e.entity, e.recordId, e.action, e.line])).toEqual([
    ['record', 'customer', '41', 'put', 2],
    ['record', 'customer', '41', 'put', 2],
  ]);
}, 60_000);

/**
 * SPEC 9 locally, end to end through the drop (the stage's workflow definition run by a real ASL
 * interpreter with the functions' handler code): what the workflow guarantees however it runs.
 * The same object run again is one import; a step that keeps failing ends it as failed; what was
 * checked is what is written; the Maps keep to the concurrency; a report's problems are capped
 * and in file order. What a file does to the table and the audit: above.
 */

test('the same object version run again (a repeated event, a redrive) is the same import: not written twice', async () => {
  const deps = localStepDeps(drop.target);
  try {
    const input = await drop.upload(deps, file([line('transaction', txn(51))]));
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
