/**
 * The import command's work (SPEC 6): validate the whole file, then write it. Both passes stream
 * the file; only ids are kept between them, to find the same record twice.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { partitionKey } from '../core/layout';
import { createTimeCodec } from '../core/times';
import { readLines } from './lines';
import { createLineParser } from './records';
import { writeGroup, type Write } from './writer';

export interface ImportOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  displayTimeZone: string;
  /** Called with each problem as `line N: <field path>: <reason>`. */
  onProblem?: (problem: string) => void;
  /** Called when writing starts (0 done) and as records are written or deleted. */
  onProgress?: (done: number, total: number) => void;
  /** Records written together (their children batched together). */
  recordsPerGroup?: number;
  /** Groups in flight at once. */
  concurrency?: number;
  /** The clock versions are made from (tests only). */
  now?: () => number;
}

export interface ImportSummary {
  /** Records written (created or replaced). */
  records: number;
  transactions: number;
  customers: number;
  /** Delete lines, and how many of them named a record that was not there. */
  deletes: number;
  notFound: number;
}

export class InvalidFileError extends Error {
  override readonly name = 'InvalidFileError';
  constructor(readonly problems: number) {
    super(`The file has ${problems} problem${problems === 1 ? '' : 's'}; nothing was written`);
  }
}

type Parsed = Write & { lineNo: number };

async function* parsedLines(
  path: string,
  parse: ReturnType<typeof createLineParser>,
  onProblem: (lineNo: number, path: string, reason: string) => void,
): AsyncGenerator<Parsed> {
  for await (const line of readLines(path)) {
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

/** Pass one: every problem of the file, and how many records it holds. */
async function validateFile(
  path: string,
  parse: ReturnType<typeof createLineParser>,
  onProblem: (problem: string) => void,
): Promise<{ problems: number; records: number }> {
  let problems = 0;
  let records = 0;
  const report = (lineNo: number, field: string, reason: string): void => {
    problems += 1;
    onProblem(`line ${lineNo}: ${field}: ${reason}`);
  };
  // A record may be on one line only: twice written, or written and deleted, is ambiguous.
  const seen = new Map<string, { lineNo: number; kind: Write['kind'] }>();
  for await (const { entity: descriptor, id, kind, lineNo } of parsedLines(path, parse, report)) {
    records += 1;
    const key = partitionKey(descriptor, id);
    const entity = descriptor.name;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, { lineNo, kind });
      continue;
    }
    const field = kind === 'put' ? `${entity}.id` : `delete.${entity}`;
    const done = (k: Write['kind']) => (k === 'put' ? 'written' : 'deleted');
    report(
      lineNo,
      field,
      first.kind === kind
        ? `${entity} ${id} is already on line ${first.lineNo}`
        : `${entity} ${id} is ${done(first.kind)} on line ${first.lineNo} and ${done(kind)} on line ${lineNo}; a file may do only one`,
    );
  }
  return { problems, records };
}

export async function importFile(path: string, options: ImportOptions): Promise<ImportSummary> {
  const {
    client,
    tableName,
    onProblem = () => {},
    onProgress = () => {},
    recordsPerGroup = 25,
    concurrency = 8,
  } = options;
  const parse = createLineParser(createTimeCodec(options.displayTimeZone));

  const { problems, records } = await validateFile(path, parse, onProblem);
  if (problems > 0) throw new InvalidFileError(problems);

  const summary: ImportSummary = {
    records: 0,
    transactions: 0,
    customers: 0,
    deletes: 0,
    notFound: 0,
  };
  const writer = { client, tableName, now: options.now };
  const unexpected = (lineNo: number): never => {
    throw new Error(`line ${lineNo} changed while importing; nothing after it was written`);
  };
  let done = 0;
  const write = async (group: Parsed[]): Promise<void> => {
    const written = await writeGroup(writer, group);
    group.forEach((w, i) => {
      if (w.kind === 'delete') {
        summary.deletes += 1;
        if (!written[i]!.existed) summary.notFound += 1;
      } else {
        summary.records += 1;
        summary[w.entity.name === 'transaction' ? 'transactions' : 'customers'] += 1;
      }
    });
    done += group.length;
    onProgress(done, records);
  };

  // Groups are written concurrently, at most `concurrency` at once; the first failure stops it.
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const start = (group: Parsed[]): void => {
    const task: Promise<void> = write(group)
      .catch((error: unknown) => void (failure ??= { error }))
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };
  onProgress(0, records);
  let group: Parsed[] = [];
  for await (const parsed of parsedLines(path, parse, unexpected)) {
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
