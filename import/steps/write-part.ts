/**
 * WritePart (second pass): the part's records, as CheckPart checked them, written as the direct
 * import writes them, one audit event each.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { importAuditEvent } from '../audit.ts';
import { count, emptySummary, type ImportSummary } from '../summary.ts';
import { problemText, type Parsed } from '../checked-lines.ts';
import { writeRecords } from '../write-records.ts';
import { assertWithinHorizon } from '../../core/import-version.ts';
import { storedRecords } from '../parts.ts';
import { ImportStopped, type PartInput, type StepContext, type StepDeps } from './step.ts';
import {
  cancelKey,
  countsOf,
  exists,
  objectBody,
  readJson,
  recordsKey,
  writeJson,
  writingKey,
  writtenKey,
  type FileLeft,
  type PartCounts,
  type WritingCounts,
  type WrittenPart,
} from './work-folder.ts';

/**
 * What WritePart keeps of its time limit: it starts no group after that, saves its counts and
 * ends (ImportStopped), rather than being cut by Lambda mid-write with nothing said.
 */
export const WRITE_STOP_MARGIN_MS = 30_000;

/** How often a writing part saves its counts and looks for the import's cancel marker. */
export const WRITE_SAVE_MS = 5_000;

/** The records CheckPart kept of a part. */
async function checkedRecords(s3: S3Client, { bucket, importId, part }: PartInput) {
  const body = await objectBody(s3, bucket, recordsKey(importId, part.index));
  if (body === undefined)
    throw new Error(`part ${part.index} of import ${importId} was not checked`);
  return storedRecords(body as AsyncIterable<Uint8Array>);
}

const total = (c: ImportSummary) => c.records + c.deletes;

/**
 * WritePart (second pass): the part's records, as CheckPart checked them, written as the direct
 * import writes them, one audit event each. Safe to repeat: a part already written is not
 * written again, and one stopped half-way is written again whole (import/writer.ts keeps every
 * read whole meanwhile).
 *
 * While it writes it saves its counts every WRITE_SAVE_MS under `writing/`, and stops (no group
 * starts after; those in flight finish) when its time limit is WRITE_STOP_MARGIN_MS away, when
 * the import's Report has cancelled it, or when `signal` aborts (the local runner's cut); then
 * it saves how far it got, and a failed import's report counts that (SPEC 9).
 */
export async function writePart(
  deps: StepDeps,
  input: PartInput,
  context?: StepContext,
  signal?: AbortSignal,
): Promise<PartCounts> {
  const { part, importId, bucket } = input;
  const index = part.index;
  const done = await readJson<WrittenPart>(deps.s3, bucket, writtenKey(importId, index));
  if (done) return countsOf(done);
  if (await exists(deps.s3, bucket, cancelKey(importId, input)))
    throw new ImportStopped(`part ${index} was not written: its import had already failed`);
  // What an earlier attempt wrote stays written: the counts never go below it.
  const earlier = await readJson<WritingCounts>(deps.s3, bucket, writingKey(importId, index));
  const counts = emptySummary();
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const limit =
    context &&
    setTimeout(
      () =>
        stop.abort(
          new ImportStopped(
            `part ${index} stopped ${WRITE_STOP_MARGIN_MS / 1000} s before its time limit`,
          ),
        ),
      Math.max(0, context.getRemainingTimeInMillis() - WRITE_STOP_MARGIN_MS),
    );
  // Files left, by line and field, this attempt's and the earlier attempts' (never a file of a
  // key some record of this part still names).
  const left = new Map<string, FileLeft>(
    (earlier?.filesLeft ?? []).map((entry) => [entry[2], entry]),
  );
  const named = new Set<string>();
  const filesLeft = (): FileLeft[] =>
    [...left.values()].filter(([, key]) => !named.has(key)).sort((a, b) => a[0] - b[0]);
  const save = (final: boolean) => {
    const best = earlier && total(earlier) > total(counts) ? earlier : counts;
    const saved: WritingCounts = { ...countsOf(best), index, final, filesLeft: filesLeft() };
    return writeJson(deps.s3, bucket, writingKey(importId, index), saved);
  };
  // Saved at once: a failed import's Report then knows this part is writing and waits for it.
  let saving: Promise<void> = save(false).catch(() => {});
  const ticker = setInterval(() => {
    saving = saving
      .then(async () => {
        await save(false);
        if (await exists(deps.s3, bucket, cancelKey(importId, input)))
          stop.abort(new ImportStopped(`part ${index} stopped: its import failed elsewhere`));
      })
      .catch(() => {}); // a save that fails is made again next time, or by the final one
  }, WRITE_SAVE_MS);
  let failure: unknown;
  let summary: ImportSummary | undefined;
  try {
    summary = await writeRecords(await checkedRecords(deps.s3, input), {
      client: deps.client,
      tableName: deps.tableName,
      version: input.version,
      mayWrite: () => assertWithinHorizon(input.version),
      concurrency: deps.writeConcurrency,
      slots: deps.writeSlots,
      signal: stop.signal,
      onWritten: (group) => {
        for (const { write, written } of group) {
          count(counts, write, written);
          if (write.kind === 'put')
            for (const field of write.entity.fileFields) {
              const key = write.record[field];
              if (typeof key === 'string') named.add(key);
            }
          if (written.outcome === 'again') {
            const text = writtenAgainText(write);
            left.set(text, [write.lineNo, '', text]);
          }
          if (written.outcome === 'written')
            for (const [field, key] of written.filesLeft) {
              const text = fileLeftText(write, field, key);
              left.set(text, [write.lineNo, key, text]);
            }
        }
        deps.onRecordsWritten?.(group.length);
        // A record left as a later file left it was not changed: no event of its own (the
        // "import ended" event counts it).
        deps.audit(
          ...group.flatMap(({ write, written }) =>
            written.outcome === 'left'
              ? []
              : [
                  importAuditEvent(importId, {
                    kind: 'record',
                    entity: write.entity.name,
                    recordId: write.id.toString(),
                    action: write.kind,
                    line: write.lineNo,
                  }),
                ],
          ),
        );
      },
    });
  } catch (error) {
    failure = error;
  } finally {
    clearInterval(ticker);
    clearTimeout(limit);
    signal?.removeEventListener('abort', onAbort);
    await saving;
  }
  if (summary === undefined) {
    // Best effort: when S3 refuses this too, the error below still says what stopped the part.
    await save(true).catch(() => {});
    throw failure;
  }
  const result: PartCounts = { index, ...summary };
  const kept: WrittenPart = { ...result, filesLeft: filesLeft() };
  await writeJson(deps.s3, bucket, writtenKey(importId, index), kept);
  // The counts alone: the Map's results stay small whatever the records named.
  return result;
}

/**
 * A record this import had already written (a write sent again, a part run again): what it
 * replaced then, and so the files that named, is not known.
 */
const writtenAgainText = (write: Parsed) =>
  problemText(
    write.lineNo,
    write.kind === 'delete' ? `delete.${write.entity.name}` : `${write.entity.name}.id`,
    `${write.entity.name} ${write.id} was found already written by this import (a write sent again): ` +
      'whether it existed before, and which files it named, is not known',
  );

/** A file a record named before this import and no longer names, for the report. */
const fileLeftText = (write: Parsed, field: string, key: string) =>
  problemText(
    write.lineNo,
    field,
    `${JSON.stringify(key)} is no longer named by ${write.entity.name} ${write.id} ` +
      `(${write.kind === 'delete' ? 'deleted' : 'replaced'}): remove it from the files bucket unless another record names it`,
  );
