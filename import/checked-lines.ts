/**
 * A file's lines as records (SPEC 6): each line parsed and checked, each problem worded as SPEC 6
 * words it, and the same record twice found. Every import reads its lines through these.
 */
import type { Line } from './lines.ts';
import type { LineParser } from './records.ts';
import type { Write } from './writer.ts';

export type Parsed = Write & { lineNo: number };

/** The records of some lines; every line that is not one is told to `onProblem`, with its number. */
export async function* checkedLines(
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
