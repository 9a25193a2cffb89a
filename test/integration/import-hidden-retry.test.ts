/**
 * A lost answer the SDK hid (issue 55): the client's own retry (`maxAttempts`) sends a PutItem
 * again after its first send landed without an answer; a later file wrote the record in between.
 * The retry then finds the later version, and the writer hears only a condition that failed on
 * the second attempt. The record is "may have been written" (`maybe`), in the report and in its
 * audit event, not "left as a later file left it".
 */
import { PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import { VERSION } from '../../core/layout.ts';
import { importIdOf } from '../../import/steps/work-folder.ts';
import { localStepDeps, runWorkflow } from '../../local/step-functions/import-runner.ts';
import { line, transaction } from '../fixtures.ts';
import { dropForTests } from '../support/drop.ts';

const env = dropForTests();

/** A version above any an upload of this century gets (core/import-version.ts: time first). */
const later = (version: string) => `zzzzzzz${version.slice(7)}`;

test("the SDK's own retry finds a later file's write after its first send landed: maybe, not left", async () => {
  const deps = localStepDeps(env.drop.target);
  const txnId = 84_000;
  let struck = false;
  // Inside the SDK's retry loop (the deserialize step runs once per attempt): the first send
  // lands, a later file's write follows, and the answer is lost as a timeout the SDK retries.
  (deps.client.middlewareStack as MiddlewareStack<object, object>).add(
    (next) => async (args) => {
      // As sent: the Document Client has put the item in DynamoDB's wire form.
      const item = (args as { input?: { Item?: Record<string, AttributeValue> } }).input?.Item;
      const result = await next(args);
      if (struck || item?.pk?.S !== `TXN#${txnId}`) return result;
      struck = true;
      await env.drop.table.client.send(
        new PutItemCommand({
          TableName: env.drop.table.tableName,
          Item: { ...item, [VERSION]: { S: later(item[VERSION]!.S!) } },
        }),
      );
      throw Object.assign(new Error('the answer was lost (test)'), { name: 'TimeoutError' });
    },
    { step: 'deserialize', name: 'lostFirstAnswer' },
  );
  try {
    const input = await env.drop.upload(
      deps,
      `${line('transaction', transaction({ id: txnId }))}\n`,
    );
    const report = await runWorkflow(deps, input);
    expect(struck).toBe(true);
    expect(report).toMatchObject({
      outcome: 'imported',
      counts: { records: 0, maybe: 1, left: 0 },
      mayHaveWritten: [expect.stringMatching(/^line 1: /)],
    });
    const importId = importIdOf(input.key, input.versionId);
    const events = env.drop
      .auditEvents()
      .filter((e) => e.importId === importId && e.kind === 'record');
    expect(events).toEqual([expect.objectContaining({ recordId: String(txnId), maybe: true })]);
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}, 60_000);
