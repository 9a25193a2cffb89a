/**
 * The import in parts (SPEC 9): a file is cut into byte ranges that end at line breaks, each
 * owning the lines that start inside it and knowing the file's number of its first line, so that
 * every problem keeps the file's own line number (a line that is not JSON or not UTF-8 included)
 * however the file is cut. Each part is checked alone; the same record in two lines, in one part
 * or two, is found when the parts' record lists are merged in file order. The checks and the
 * writes are the direct import's own (./direct-import.ts).
 */
import { createHash } from 'node:crypto';
import { ENTITIES, type Entity } from '../core/entities.ts';
import { parseExactJson, stringifyExactJson } from '../core/json.ts';
import type { Item } from '../core/layout.ts';
import { lookupWarnings } from '../core/lookups.ts';
import {
  checkedLines,
  duplicateCheck,
  problemText,
  type Parsed,
  type RecordRef,
} from './checked-lines.ts';
import { MAX_LINE_BYTES, linesOf, type Line } from './lines.ts';
import type { LineParser } from './records.ts';

/** Bytes a part holds at least (but its last line's end), unless the file ends first. */
export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;
/** Problems a report lists; the total is always exact (SPEC 9). */
export const MAX_LISTED_PROBLEMS = 1000;
/**
 * Files named but missing a report lists: each is a file the operator must put, so the report
 * holds them all in any file of real size; the bound keeps a step's memory within its function's.
 */
export const MAX_LISTED_WARNINGS = 100_000;

/** A byte range `[start, end)` of the file, its first line's number in the file. */
export interface Part {
  index: number;
  start: number;
  end: number;
  firstLine: number;
}

export interface FilePlan {
  sha256: string;
  size: number;
  parts: Part[];
}

/**
 * Reads the file once: its SHA-256 and its parts, each ending at the first line break at or
 * after `partBytes` bytes from its start (or at the file's end).
 */
export async function planParts(
  chunks: AsyncIterable<Uint8Array>,
  partBytes = DEFAULT_PART_BYTES,
): Promise<FilePlan> {
  if (!Number.isSafeInteger(partBytes) || partBytes < 1)
    throw new Error(`part size must be a whole number of bytes, at least 1: ${partBytes}`);
  const hash = createHash('sha256');
  const parts: Part[] = [];
  let offset = 0; // bytes read before this chunk
  let start = 0; // the open part's first byte
  let firstLine = 1; // the open part's first line
  let line = 1; // the line the next byte is in
  for await (const chunk of chunks) {
    hash.update(chunk);
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      line += 1;
      const end = offset + i + 1;
      if (end - start >= partBytes) {
        parts.push({ index: parts.length, start, end, firstLine });
        start = end;
        firstLine = line;
      }
    }
    offset += chunk.length;
  }
  if (offset > start) parts.push({ index: parts.length, start, end: offset, firstLine });
  return { sha256: hash.digest('hex'), size: offset, parts };
}

/** A record line as a checked part lists it: `[entity, id, kind, line]` (compact: parts are big). */
export type RecordEntry = [Entity, string, 'put' | 'delete', number];
/** A problem with its line number, so that merged problems sort in file order. */
export type LineProblem = [number, string];

/** What checking a part found: its problems (the first MAX_LISTED_PROBLEMS), their count, its records. */
export interface CheckedPart {
  index: number;
  problems: LineProblem[];
  problemCount: number;
  records: RecordEntry[];
  /** Files its records name that the files bucket lacks (./file-check.ts): warnings, capped. */
  missingFiles?: LineProblem[];
  missingFileCount?: number;
  /** Customers' identifiers of an unexpected shape, or that no lookup finds (SPEC 10): capped. */
  lookupWarnings: LineProblem[];
  lookupWarningCount: number;
}

/**
 * Checks a part's lines (the first pass), each line as the direct import checks it; `onRecord`
 * gets each record as checked, in stored form.
 */
export async function checkPart(
  index: number,
  lines: AsyncIterable<Line>,
  parse: LineParser,
  onRecord: (record: Parsed) => void = () => {},
): Promise<CheckedPart> {
  const checked: CheckedPart = {
    index,
    problems: [],
    problemCount: 0,
    records: [],
    lookupWarnings: [],
    lookupWarningCount: 0,
  };
  const onProblem = (lineNo: number, field: string, reason: string): void => {
    checked.problemCount += 1;
    if (checked.problems.length < MAX_LISTED_PROBLEMS)
      checked.problems.push([lineNo, problemText(lineNo, field, reason)]);
  };
  for await (const record of checkedLines(lines, parse, onProblem)) {
    checked.records.push([record.entity.name, record.id.toString(), record.kind, record.lineNo]);
    if (record.kind === 'put' && record.entity.name === 'customer')
      for (const [field, reason] of lookupWarnings(record.record)) {
        checked.lookupWarningCount += 1;
        if (checked.lookupWarnings.length < MAX_LISTED_WARNINGS)
          checked.lookupWarnings.push([record.lineNo, problemText(record.lineNo, field, reason)]);
      }
    onRecord(record);
  }
  return checked;
}

/**
 * A checked record as CheckPart keeps it for WritePart, one JSON line: the record in stored form
 * (times already UTC instants), integers as JSON integers read back as bigints (core/json.ts), so
 * that WritePart writes exactly what was checked without reading and parsing the part again.
 */
export function storedRecordLine(record: Parsed): string {
  const { lineNo: line, entity } = record;
  return `${stringifyExactJson(
    record.kind === 'put'
      ? { line, put: entity.name, record: record.record }
      : { line, delete: entity.name, id: record.id },
  )}\n`;
}

/** Lines of a StoredRecordsWriter made into bytes at once (a block's size: docs/import.md). */
const STORED_BLOCK_LINES = 256;

/** How a line of a stored records object's head starts. */
const NAMED = '{"named":';

/** A file a record names: its line, its field, the key. */
export type FileRef = [lineNo: number, field: string, key: string];

/** The files a written record names (a deletion names none). */
export function fileRefsOf(record: Parsed): FileRef[] {
  if (record.kind !== 'put') return [];
  return record.entity.fileFields.flatMap((field) => {
    const key = record.record[field];
    return typeof key === 'string' ? [[record.lineNo, field, key] as FileRef] : [];
  });
}

/**
 * A part's stored records as the bytes of the object WritePart reads, made into bytes a block at
 * a time: thousands of small strings held until the part is done would each be copied by the
 * young collections and then promoted, where a block's strings die young. The object starts with
 * the file keys its records name, a line each (`{"named": key}`, then `{"named": null}`), so
 * that WritePart knows them all before its first write (import/steps/write-part.ts).
 */
export function storedRecordsWriter(): { add(record: Parsed): void; bytes(): Buffer } {
  const blocks: Buffer[] = [];
  const named = new Set<string>();
  let lines: string[] = [];
  const flush = () => {
    if (lines.length > 0) blocks.push(Buffer.from(lines.join('')));
    lines = [];
  };
  return {
    add(record) {
      lines.push(storedRecordLine(record));
      for (const [, , key] of fileRefsOf(record)) named.add(key);
      if (lines.length >= STORED_BLOCK_LINES) flush();
    },
    bytes() {
      flush();
      const head = [...named, null].map((key) => `${NAMED}${JSON.stringify(key)}}\n`);
      return Buffer.concat([Buffer.from(head.join('')), ...blocks]);
    },
  };
}

/** A stored line grows by at most this over its file line (times written out in full, in UTC). */
const STORED_LINE_BYTES = 2 * MAX_LINE_BYTES;

/**
 * A stored records object: the file keys its records name, then its records in order. `named` is
 * undefined for an object CheckPart wrote before it kept them (an import under way while its
 * stage was updated).
 */
export async function readStoredRecords(
  chunks: AsyncIterable<Uint8Array>,
): Promise<{ named: ReadonlySet<string> | undefined; records: AsyncGenerator<Parsed> }> {
  async function* values() {
    for await (const line of linesOf(chunks, 1, STORED_LINE_BYTES)) {
      if ('error' in line) throw new Error(`stored line ${line.lineNo} ${line.error}`);
      // A key's line holds no number: plain JSON.parse reads it exactly, and faster.
      const value = line.text.startsWith(NAMED) ? JSON.parse(line.text) : parseExactJson(line.text);
      yield { lineNo: line.lineNo, value: value as StoredLine };
    }
  }
  const all = values();
  let first = await all.next();
  let named: Set<string> | undefined;
  if (!first.done && Object.hasOwn(first.value.value, 'named')) {
    named = new Set();
    for (; !first.done && typeof first.value.value.named === 'string'; first = await all.next())
      named.add(first.value.value.named);
    if (first.done || first.value.value.named !== null)
      throw new Error('stored records: the file keys they name do not end');
    first = await all.next();
  }
  async function* records(): AsyncGenerator<Parsed> {
    for (let next = first; !next.done; next = await all.next()) yield storedRecord(next.value);
  }
  return { named, records: records() };
}

interface StoredLine {
  named?: string | null;
  line: bigint;
  put?: string;
  record?: Item;
  delete?: string;
  id?: bigint;
}

function storedRecord({ lineNo, value }: { lineNo: number; value: StoredLine }): Parsed {
  const bad = (why: string) => new Error(`stored record ${lineNo} ${why}`);
  const name = value.put ?? value.delete;
  if (name === undefined || !Object.hasOwn(ENTITIES, name)) throw bad('names no entity');
  const entity = ENTITIES[name as Entity];
  const line = Number(value.line);
  if (value.put !== undefined && typeof value.record?.id === 'bigint')
    return { kind: 'put', entity, id: value.record.id, record: value.record, lineNo: line };
  if (value.delete !== undefined && typeof value.id === 'bigint')
    return { kind: 'delete', entity, id: value.id, lineNo: line };
  throw bad('is neither a put nor a delete');
}

export interface Verdict {
  /** The first MAX_LISTED_PROBLEMS problems in file order, as SPEC 6 words them. */
  problems: string[];
  problemCount: number;
  records: number;
  /** The first MAX_LISTED_WARNINGS files named but missing, in file order; the exact count. */
  warnings: string[];
  warningCount: number;
  /** The first MAX_LISTED_WARNINGS lookup warnings (CheckedPart), in file order; the exact count. */
  lookupWarnings: string[];
  lookupWarningCount: number;
}

/**
 * Merges the checked parts (the Verify step), fed one at a time in file order (index 0, 1, ...)
 * so that only the record ids stay in memory: their problems and every record seen twice in the
 * file, in file order, as the direct import reports them.
 */
export function partVerifier(): { add(part: CheckedPart): void; verdict(): Verdict } {
  const duplicate = duplicateCheck();
  let problems: LineProblem[] = [];
  let problemCount = 0;
  let records = 0;
  let warnings: string[] = [];
  let warningCount = 0;
  let lookupWarnings: string[] = [];
  let lookupWarningCount = 0;
  let next = 0;
  return {
    add(part) {
      if (part.index !== next) throw new Error(`part ${part.index} came where ${next} belongs`);
      next += 1;
      const found: LineProblem[] = [...part.problems];
      problemCount += part.problemCount;
      for (const [entity, id, kind, lineNo] of part.records) {
        records += 1;
        const ref: RecordRef = { entity, id: BigInt(id), kind, lineNo };
        const repeated = duplicate(ref);
        if (!repeated) continue;
        problemCount += 1;
        found.push([lineNo, problemText(lineNo, ...repeated)]);
      }
      // Stable: a line's own problems keep their order; no line has both kinds. The parts come
      // in file order, so the first MAX_LISTED_PROBLEMS so far stay the first.
      found.sort((a, b) => a[0] - b[0]);
      problems = problems.concat(found.slice(0, MAX_LISTED_PROBLEMS - problems.length));
      warningCount += part.missingFileCount ?? 0;
      warnings = warnings.concat(
        (part.missingFiles ?? [])
          .slice(0, MAX_LISTED_WARNINGS - warnings.length)
          .map(([, text]) => text),
      );
      lookupWarningCount += part.lookupWarningCount ?? 0;
      lookupWarnings = lookupWarnings.concat(
        (part.lookupWarnings ?? [])
          .slice(0, MAX_LISTED_WARNINGS - lookupWarnings.length)
          .map(([, text]) => text),
      );
    },
    verdict: () => ({
      problems: problems.map(([, text]) => text),
      problemCount,
      records,
      warnings,
      warningCount,
      lookupWarnings,
      lookupWarningCount,
    }),
  };
}

/** The verdict of parts all at hand (tests): partVerifier fed in file order. */
export function verifyParts(checked: CheckedPart[]): Verdict {
  const verifier = partVerifier();
  for (const part of [...checked].sort((a, b) => a.index - b.index)) verifier.add(part);
  return verifier.verdict();
}
