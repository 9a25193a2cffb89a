/**
 * The direct import (SPEC 6): one process validates the whole file, then writes it, without the
 * drop's workflow (the local tools, the bench and the tests). Both passes stream the file; only
 * ids are kept between them, to find the same record twice.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startVersion } from '../core/import-version.ts';
import { createTimeCodec } from '../core/times.ts';
import { checkedLines, duplicateCheck, problemText } from './checked-lines.ts';
import { readLines } from './lines.ts';
import { createLineParser, type LineParser } from './records.ts';
import type { ImportSummary } from './summary.ts';
import { writeRecords } from './write-records.ts';

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

export class InvalidFileError extends Error {
  override readonly name = 'InvalidFileError';
  readonly problems: number;
  constructor(problems: number) {
    super(`The file has ${problems} problem${problems === 1 ? '' : 's'}; nothing was written`);
    this.problems = problems;
  }
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
  for await (const { entity, id, kind, lineNo } of checkedLines(readLines(path), parse, report)) {
    records += 1;
    const found = duplicate({ entity: entity.name, id, kind, lineNo });
    if (found) report(lineNo, ...found);
  }
  return { problems, records };
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
  return writeRecords(checkedLines(readLines(path), parse, unexpected), {
    ...options,
    version,
    onWritten: (group) => {
      done += group.length;
      onProgress(done, records);
    },
  });
}
