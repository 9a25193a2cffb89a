/**
 * WritePart (second pass): the part's records, as CheckPart checked them, written as the direct
 * import writes them, one audit event each.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { importAuditEvent } from '../audit.ts';
import { count, emptySummary } from '../summary.ts';
import { problemText, type Parsed } from '../checked-lines.ts';
import { WRITE_CONCURRENCY, writeRecords } from '../write-records.ts';
import { assertWithinHorizon } from '../../core/import-version.ts';
import { fileRefsOf, readStoredRecords } from '../parts.ts';
import { ImportStopped, type PartInput, type StepContext, type StepDeps } from './step.ts';
import {
  cancelKey,
  FilesLeftList,
  NOT_KNOWN,
  countsOf,
  existsByHead,
  objectBody,
  readJson,
  recordsKey,
  writeJson,
  writingKey,
  writtenKey,
  type PartCounts,
  type WritingCounts,
  type WrittenPart,
} from './work-folder.ts';

/**
 * What WritePart keeps of its time limit: it starts no group after that, saves its counts and
 * ends (ImportStopped), rather than being cut by Lambda mid-write with nothing said.
 */
export const WRITE_STOP_MARGIN_MS = 30_000;

/** How often a writing part looks for its import's cancel marker. */
export const WRITE_SAVE_MS = 5_000;

/**
 * The records CheckPart kept of a part, and every file key they name: from the object's head, or
 * (an object kept before it had one) from a first read of the records.
 */
async function checkedRecords(s3: S3Client, { bucket, importId, part }: PartInput) {
  const read = async () => {
    const body = await objectBody(s3, bucket, recordsKey(importId, part.index));
    if (body === undefined)
      throw new Error(`part ${part.index} of import ${importId} was not checked`);
    return readStoredRecords(body as AsyncIterable<Uint8Array>);
  };
  const { named, records } = await read();
  if (named) return { named, records };
  const keys = new Set<string>();
  for await (const record of records) for (const [, , key] of fileRefsOf(record)) keys.add(key);
  return { named: keys, records: (await read()).records };
}

/** Records written together, as the direct import writes them (import/write-records.ts). */
const RECORDS_PER_GROUP = 25;

/**
 * WritePart (second pass): the part's records, as CheckPart checked them, written as the direct
 * import writes them, one audit event each. Safe to repeat: a part already written is not
 * written again, and one stopped half-way goes on where it was.
 *
 * Each group's outcomes are saved under `writing/` before the group is done (and so before a
 * group after it starts): which records (by their place in the part) have their answer
 * recorded, the counts over them, and how far any attempt may have sent. An attempt run again
 * writes only the records no attempt recorded, and adds its counts to theirs: each record is
 * counted once, whatever attempts wrote it, and a crash between groups loses no count. A record
 * an earlier attempt may have sent without recording its answer is counted as the item its send
 * again finds tells (import/writer.ts).
 *
 * It stops (no group starts after; those in flight finish) when its time limit is
 * WRITE_STOP_MARGIN_MS away, when the import's Report has cancelled it (looked for every
 * WRITE_SAVE_MS), or when `signal` aborts (the local runner's cut); then it saves how far it
 * got, and a failed import's report counts that (SPEC 9).
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
  if (await existsByHead(deps.s3, bucket, cancelKey(importId, input)))
    throw new ImportStopped(`part ${index} was not written: its import had already failed`);
  const earlier = await readJson<WritingCounts>(deps.s3, bucket, writingKey(importId, index));
  const { named, records } = await checkedRecords(deps.s3, input);
  const recorded = new Positions(earlier?.recorded ?? []);
  const counts = earlier ? countsOf(earlier) : emptySummary();
  const mayHaveSent = earlier?.sent ?? 0;
  const concurrency = deps.writeConcurrency ?? WRITE_CONCURRENCY;
  const recordsPerGroup = deps.recordsPerGroup ?? RECORDS_PER_GROUP;
  const inFlight = concurrency * recordsPerGroup;
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
  // Files left, this attempt's and the earlier attempts', never a file some record of this part
  // names: what a save keeps of them stays bounded however many there are.
  const left = new FilesLeftList();
  // (An attempt before WritePart knew every key named may have listed one a later line names.)
  if (earlier)
    left.merge({ ...earlier, filesLeft: earlier.filesLeft.filter(([, key]) => !named.has(key)) });

  // The records no attempt has recorded, each with its place in the part.
  const position = new Map<Parsed, number>();
  let pulled = -1;
  async function* unrecorded() {
    let at = 0;
    for await (const record of records) {
      if (!recorded.has(at)) {
        position.set(record, at);
        pulled = at;
        yield record;
      }
      at += 1;
    }
  }

  // Saves in order, one at a time; groups done while one is on its way share the next.
  let stopped = false;
  let sent = mayHaveSent;
  const snapshot = (): WritingCounts => {
    // What this attempt may send before its next save lands: the groups in flight at most.
    sent = Math.max(sent, recorded.afterUnrecorded(pulled + 1, inFlight));
    return {
      ...counts,
      index,
      final: stopped,
      ...left.kept(),
      recorded: recorded.ranges,
      sent,
    };
  };
  let last: Promise<void> = Promise.resolve();
  let next: Promise<void> | undefined;
  const save = (): Promise<void> => {
    next ??= last
      .catch(() => {})
      .then(() => {
        next = undefined;
        return writeJson(deps.s3, bucket, writingKey(importId, index), snapshot());
      });
    last = next;
    return next;
  };
  // Saved before any write: a failed import's Report then knows this part is writing and waits
  // for it, and a later attempt knows how far this one may send.
  await save();
  let checking: Promise<void> = Promise.resolve();
  const ticker = setInterval(() => {
    checking = checking
      .then(async () => {
        if (await existsByHead(deps.s3, bucket, cancelKey(importId, input)))
          stop.abort(new ImportStopped(`part ${index} stopped: its import failed elsewhere`));
      })
      .catch(() => {}); // looked for again next time
  }, WRITE_SAVE_MS);
  let failure: unknown;
  let written = false;
  try {
    await writeRecords(unrecorded(), {
      client: deps.client,
      tableName: deps.tableName,
      version: input.version,
      mayWrite: () => assertWithinHorizon(input.version),
      recordsPerGroup,
      concurrency,
      slots: deps.writeSlots,
      signal: stop.signal,
      mayHaveLanded: (write) => (position.get(write) ?? Infinity) < mayHaveSent,
      onWritten: (group) => {
        for (const { write, written } of group) {
          recorded.add(position.get(write)!);
          position.delete(write);
          count(counts, write, written);
          if (written.outcome === 'again' || written.outcome === 'maybe') {
            const text = (written.outcome === 'again' ? writtenAgainText : mayHaveWrittenText)(
              write,
            );
            left.add([write.lineNo, NOT_KNOWN[written.outcome], text]);
          }
          if (written.outcome === 'written')
            for (const [field, key] of written.filesLeft)
              if (!named.has(key)) left.add([write.lineNo, key, fileLeftText(write, field, key)]);
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
                    ...(written.outcome === 'maybe' ? { maybe: true as const } : {}),
                  }),
                ],
          ),
        );
        return save();
      },
    });
    written = true;
  } catch (error) {
    failure = error;
  } finally {
    clearInterval(ticker);
    clearTimeout(limit);
    signal?.removeEventListener('abort', onAbort);
    await checking;
  }
  if (!written) {
    stopped = true;
    // Best effort: when S3 refuses this too, the error below still says what stopped the part.
    await save().catch(() => {});
    throw failure;
  }
  const result: PartCounts = { ...counts, index };
  const kept: WrittenPart = { ...result, ...left.kept() };
  await writeJson(deps.s3, bucket, writtenKey(importId, index), kept);
  // The counts alone: the Map's results stay small whatever the records named.
  return result;
}

/**
 * Places in a part (0 the first record), as sorted ranges `[from, to)`: those recorded, kept
 * small whatever the part's size (recorded records are mostly one run).
 */
class Positions {
  readonly ranges: [number, number][];
  constructor(ranges: [number, number][]) {
    this.ranges = ranges;
  }
  /** The first range ending after `at`. */
  private find(at: number): number {
    let lo = 0;
    let hi = this.ranges.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ranges[mid]![1] <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  has(at: number): boolean {
    const range = this.ranges[this.find(at)];
    return range !== undefined && range[0] <= at;
  }
  add(at: number): void {
    const i = this.find(at);
    const range = this.ranges[i];
    if (range !== undefined && range[0] <= at) return;
    const before = i > 0 && this.ranges[i - 1]![1] === at;
    const after = range !== undefined && range[0] === at + 1;
    if (before && after) this.ranges.splice(i - 1, 2, [this.ranges[i - 1]![0], range[1]]);
    else if (before) this.ranges[i - 1]![1] = at + 1;
    else if (after) range[0] = at;
    else this.ranges.splice(i, 0, [at, at + 1]);
  }
  /** Where the `n`-th place from `from` not recorded ends: `[from, end)` holds n unrecorded. */
  afterUnrecorded(from: number, n: number): number {
    let at = from;
    let wanted = n;
    for (let i = this.find(from); i < this.ranges.length && wanted > 0; i += 1) {
      const [start, end] = this.ranges[i]!;
      const gap = Math.max(0, start - at);
      if (gap >= wanted) return at + wanted;
      wanted -= gap;
      at = Math.max(at, end);
    }
    return at + wanted;
  }
}

/**
 * A record this import may have written before a later file replaced it: a send whose answer
 * was lost (a timeout, an attempt of the part stopped before it recorded it) may have landed.
 */
const mayHaveWrittenText = (write: Parsed) =>
  problemText(
    write.lineNo,
    write.kind === 'delete' ? `delete.${write.entity.name}` : `${write.entity.name}.id`,
    `${write.entity.name} ${write.id} may have been ${write.kind === 'delete' ? 'deleted' : 'written'} by this import ` +
      '(a send whose answer was lost may have landed) before a later file replaced it: ' +
      'whether it existed before, and which files it named, is not known',
  );

/**
 * A record this import had already written (a write sent again, a part run again), in an item
 * that keeps no PRIOR's (core/layout.ts): what it replaced then, and so the files that named, is
 * not known.
 */
const writtenAgainText = (write: Parsed) =>
  problemText(
    write.lineNo,
    write.kind === 'delete' ? `delete.${write.entity.name}` : `${write.entity.name}.id`,
    `${write.entity.name} ${write.id} was found already written by this import, by a writer that kept no record of what it replaced: ` +
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
