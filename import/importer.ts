/**
 * The import command's work (SPEC 6): validate the whole file, then write it. Both passes stream
 * the file; only ids are kept between them, to find the same record twice.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { startVersion } from '../core/import-version.ts';
import { createTimeCodec } from '../core/times.ts';
import { readLines, type Line } from './lines.ts';
import { createLineParser, type LineParser } from './records.ts';
import { writeRecord, type Write, type WriterOptions, type Written } from './writer.ts';

export interface ImportOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  displayTimeZone: string;
  /** Called with each problem as `line N: <field path>: <reason>`. */
  onProblem?: (problem: string) => void;
  /** Called when writing starts (0 done) and as records are written or deleted. */
  onProgress?: (done: number, total: number) => void;
  /** Records written together, each by a request of its own. */
  recordsPerGroup?: number;
  /** Groups in flight at once. */
  concurrency?: number;
  /** The import's version; default one from its own start (core/import-version.ts). */
  version?: string;
}

export interface ImportSummary {
  /** Records written (created or replaced). */
  records: number;
  transactions: number;
  customers: number;
  /** Records deleted, and how many of them were not there. */
  deletes: number;
  notFound: number;
  /** Records (and deletions) left as a later file left them: not written. */
  left: number;
  /**
   * Records (and deletions) found already written by this import (a write sent again, a part run
   * again): done, but what they replaced is not known (counted in records or deletes, never in
   * notFound).
   */
  again: number;
  /** Records written over, or left by, a file put within the same second (S3's order decided). */
  sameSecond: number;
}

export class InvalidFileError extends Error {
  override readonly name = 'InvalidFileError';
  readonly problems: number;
  constructor(problems: number) {
    super(`The file has ${problems} problem${problems === 1 ? '' : 's'}; nothing was written`);
    this.problems = problems;
  }
}

export type Parsed = Write & { lineNo: number };

/** The records of some lines; every line that is not one is told to `onProblem`, with its number. */
export async function* parsedLines(
  lines: AsyncIterable<Line>,
  parse: LineParser,
  onProblem: (lineNo: number, path: string, reason: string) => void,
): AsyncGenerator<Parsed> {
  for await (const line of lines) {
    if ('error' in line) {
      onProblem(line.lineNo, '$', line.error);
      continue;
    }
    if (line.text.trim() === '') continue;
    const parsed = parse(line.text);
    if (parsed.ok) yield { ...parsed, lineNo: line.lineNo };
    else for (const p of parsed.problems) onProblem(line.lineNo, p.path, p.reason);
  }
}

/** A problem as SPEC 6 reports it. */
export const problemText = (lineNo: number, field: string, reason: string): string =>
  `line ${lineNo}: ${field}: ${reason}`;

/** What the duplicate check keeps of a record line: which record, written or deleted, where. */
export interface RecordRef {
  entity: Write['entity']['name'];
  id: bigint;
  kind: Write['kind'];
  lineNo: number;
}

/** Maps per entity: one V8 Map holds at most 2^24 entries; a backfill has more records. */
const SHARDS = 64;

/**
 * The same record twice in a file, fed its record lines in file order: a record may be on one
 * line only (twice written, or written and deleted, is ambiguous). Returns the problem of a
 * line that repeats an earlier one, as `[field, reason]`. Keeps a number per record (ids are at
 * most 2^53-1, exact as numbers): its first line, and whether that line deletes it.
 */
export function duplicateCheck(): (ref: RecordRef) => [string, string] | undefined {
  const seen = new Map<string, Map<number, number>[]>();
  const done = (k: Write['kind']) => (k === 'put' ? 'written' : 'deleted');
  return ({ entity, id, kind, lineNo }) => {
    let shards = seen.get(entity);
    if (!shards) seen.set(entity, (shards = Array.from({ length: SHARDS }, () => new Map())));
    const shard = shards[Number(id % BigInt(SHARDS))]!;
    const key = Number(id);
    const first = shard.get(key);
    if (first === undefined) {
      shard.set(key, lineNo * 2 + (kind === 'delete' ? 1 : 0));
      return undefined;
    }
    const firstLine = Math.floor(first / 2);
    const firstKind: Write['kind'] = first % 2 === 1 ? 'delete' : 'put';
    const field = kind === 'put' ? `${entity}.id` : `delete.${entity}`;
    return [
      field,
      firstKind === kind
        ? `${entity} ${id} is already on line ${firstLine}`
        : `${entity} ${id} is ${done(firstKind)} on line ${firstLine} and ${done(kind)} on line ${lineNo}; a file may do only one`,
    ];
  };
}

/** Pass one: every problem of the file, and how many records it holds. */
async function validateFile(
  path: string,
  parse: LineParser,
  onProblem: (problem: string) => void,
): Promise<{ problems: number; records: number }> {
  let problems = 0;
  let records = 0;
  const report = (lineNo: number, field: string, reason: string): void => {
    problems += 1;
    onProblem(problemText(lineNo, field, reason));
  };
  const duplicate = duplicateCheck();
  for await (const { entity, id, kind, lineNo } of parsedLines(readLines(path), parse, report)) {
    records += 1;
    const found = duplicate({ entity: entity.name, id, kind, lineNo });
    if (found) report(lineNo, ...found);
  }
  return { problems, records };
}

/** An empty summary, and how one written record or delete counts in it. */
export const emptySummary = (): ImportSummary => ({
  records: 0,
  transactions: 0,
  customers: 0,
  deletes: 0,
  notFound: 0,
  left: 0,
  again: 0,
  sameSecond: 0,
});

export function count(summary: ImportSummary, write: Write, written: Written): void {
  if (written.outcome !== 'again' && written.sameSecond) summary.sameSecond += 1;
  if (written.outcome === 'left') {
    summary.left += 1;
    return;
  }
  if (written.outcome === 'again') summary.again += 1;
  if (write.kind === 'delete') {
    summary.deletes += 1;
    if (written.outcome === 'written' && !written.existed) summary.notFound += 1;
  } else {
    summary.records += 1;
    summary[write.entity.name === 'transaction' ? 'transactions' : 'customers'] += 1;
  }
}

/** The direct import's groups in flight at once, and the default of each part of a drop. */
export const WRITE_CONCURRENCY = 8;

/**
 * Runs a write group when one of `n` slots is free. One process writing several parts at once
 * (the local drop runs every part in one process) shares one, so that its requests in flight
 * stay those of one import; a stage's function writes one part at a time.
 */
export type WriteSlots = <T>(write: () => Promise<T>) => Promise<T>;
export const writeSlots = (n: number): WriteSlots => pLimit(n);

export interface WriteOptions extends WriterOptions {
  /** Checked before each group: throws once the import may no longer write (its horizon). */
  mayWrite?: () => void;
  recordsPerGroup?: number;
  concurrency?: number;
  /** Slots shared with other writes in this process; default `concurrency` of its own. */
  slots?: WriteSlots;
  /** Once aborted, no group starts (those in flight finish); its reason is what is thrown. */
  signal?: AbortSignal;
  /** Called after each group is written, with each record or delete and what its write found. */
  onWritten?: (group: { write: Parsed; written: Written }[]) => void;
}

/**
 * Pass two: writes checked records, in groups, at most `concurrency` groups at once; the first
 * failure (of the writes, or of `records`) stops it. Returns the counts.
 */
export async function writeRecords(
  records: AsyncIterable<Parsed>,
  options: WriteOptions,
): Promise<ImportSummary> {
  const { recordsPerGroup = 25, concurrency = WRITE_CONCURRENCY, onWritten = () => {} } = options;
  const slots = options.slots ?? writeSlots(concurrency);
  const summary = emptySummary();
  // The group's records at once; those written are counted and told even when another fails,
  // so that a failed import's report counts every record it wrote (SPEC 9).
  const write = async (group: Parsed[]): Promise<void> => {
    options.mayWrite?.();
    const settled = await Promise.allSettled(group.map((w) => writeRecord(options, w)));
    const done = group.flatMap((write, i) => {
      const result = settled[i]!;
      return result.status === 'fulfilled' ? [{ write, written: result.value }] : [];
    });
    for (const { write, written } of done) count(summary, write, written);
    onWritten(done);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  };

  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const start = (group: Parsed[]): void => {
    // The failure is noted before the slot is let go: a group still waiting is not written.
    const task: Promise<void> = slots(async () => {
      if (!failure && options.signal?.aborted) failure = { error: options.signal.reason };
      if (!failure) await write(group).catch((error: unknown) => void (failure ??= { error }));
    }).finally(() => inFlight.delete(task));
    inFlight.add(task);
  };
  let group: Parsed[] = [];
  for await (const parsed of records) {
    if (options.signal?.aborted) failure ??= { error: options.signal.reason };
    if (failure) break;
    group.push(parsed);
    if (group.length < recordsPerGroup) continue;
    start(group);
    group = [];
    while (inFlight.size >= concurrency && !failure) await Promise.race(inFlight);
    if (failure) break;
  }
  if (group.length > 0 && !failure) start(group);
  await Promise.all(inFlight);
  if (failure) throw failure.error;
  return summary;
}

export async function importFile(path: string, options: ImportOptions): Promise<ImportSummary> {
  const { onProblem = () => {}, onProgress = () => {} } = options;
  const version = options.version ?? startVersion();
  const parse = createLineParser(createTimeCodec(options.displayTimeZone));

  const { problems, records } = await validateFile(path, parse, onProblem);
  if (problems > 0) throw new InvalidFileError(problems);

  let done = 0;
  onProgress(0, records);
  // Every line was valid a moment ago: one that no longer parses stops the import.
  const unexpected = (lineNo: number): never => {
    throw new Error(`line ${lineNo} changed while importing; nothing after it was written`);
  };
  return writeRecords(parsedLines(readLines(path), parse, unexpected), {
    ...options,
    version,
    onWritten: (group) => {
      done += group.length;
      onProgress(done, records);
    },
  });
}
