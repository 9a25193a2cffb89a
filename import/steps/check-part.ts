/**
 * CheckPart (first pass): the part's problems and record ids, kept for Verify, and its records
 * as checked, kept for WritePart (a part with problems is never written: none are kept).
 */
import { createTimeCodec } from '../../core/times.ts';
import { missingFiles } from '../file-check.ts';
import { linesOf, MAX_LINE_BYTES } from '../lines.ts';
import {
  MAX_LISTED_WARNINGS,
  checkPart,
  fileRefsOf,
  storedRecordsWriter,
  type FileRef,
} from '../parts.ts';
import { createLineParser } from '../records.ts';
import type { PartInput, StepDeps } from './step.ts';
import { body, checkedKey, recordsKey, writeJson, writeObject } from './work-folder.ts';

const parserOf = (deps: StepDeps) =>
  createLineParser(createTimeCodec(deps.displayTimeZone, deps.displayTimeZoneOffsets));

export interface CheckResult {
  index: number;
  problems: number;
  records: number;
}

export async function checkPartStep(deps: StepDeps, input: PartInput): Promise<CheckResult> {
  const { part, importId, bucket } = input;
  // The part's place in the file: its lines' numbers, and a bad byte's offset, are the file's.
  const lines = linesOf(
    await body(deps.s3, input, part),
    part.firstLine,
    MAX_LINE_BYTES,
    part.start,
  );
  const stored = storedRecordsWriter();
  const files: FileRef[] = [];
  const checked = await checkPart(part.index, lines, parserOf(deps), (record) => {
    stored.add(record);
    files.push(...fileRefsOf(record));
  });
  // Only for a part that will be written: a rejected file's report lists its problems.
  if (deps.filesBucket !== undefined && checked.problemCount === 0) {
    const missing = await missingFiles(deps.s3, deps.filesBucket, files);
    checked.missingFiles = missing.slice(0, MAX_LISTED_WARNINGS);
    checked.missingFileCount = missing.length;
  }
  await Promise.all([
    writeJson(deps.s3, bucket, checkedKey(importId, part.index), checked),
    checked.problemCount === 0 &&
      writeObject(
        deps.s3,
        bucket,
        recordsKey(importId, part.index),
        stored.bytes(),
        'application/x-ndjson',
      ),
  ]);
  return { index: part.index, problems: checked.problemCount, records: checked.records.length };
}
