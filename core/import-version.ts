/**
 * An import's version (SPEC 6: the file put later wins). Fixed once from the upload, never from a
 * writer's clock, so every write of one import (each part, each retry, each redrive) carries the
 * same one, and a later upload has a higher one. Fixed width, so that versions compare as strings
 * (DynamoDB's condition `v < :v` compares them so):
 *
 * | chars | what                                                                            |
 * |-------|---------------------------------------------------------------------------------|
 * | 7     | the upload's time in whole seconds since 1970, base 36 (good until about 4453)   |
 * | 24    | S3's sequencer of the upload, hex, upper case, padded with zeros on the left     |
 * | 12    | the import's id (hex): two imports never share a version                         |
 *
 * The time is as S3 reports it (in AWS the event's, whole seconds; locally the local S3's), so
 * uploads a second or more apart are ordered whatever the writers' clocks say. Within one second
 * S3's sequencer breaks the tie: AWS orders it only for one key, and each upload has its own, so
 * the tie is broken the same way each time (every retry sees the same event) but not by which was
 * put last (locally, where S3 gives none, the upload's end in milliseconds stands in for it).
 */
import { randomBytes } from 'node:crypto';
import { IMPORT_WRITE_HORIZON_DAYS, TOMBSTONE_DAYS } from './retention.ts';

const TIME_CHARS = 7;
const SEQUENCER_CHARS = 24;
const ID_CHARS = 12;
export const IMPORT_VERSION_LENGTH = TIME_CHARS + SEQUENCER_CHARS + ID_CHARS;
/** A version as long as every version: what the import sizes a record with before writing it. */
export const VERSION_FOR_SIZE = 'z'.repeat(IMPORT_VERSION_LENGTH);

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * ISO 8601 with its zone, as S3's events and the local S3 give it: a time without its zone would
 * be read in the reader's own (another instant on another machine), and `Date.parse` alone takes
 * loose forms (`"1 Z"` is 2001).
 */
const UPLOAD_TIME = /^([+-]\d{6}|\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;

export class ImportVersionError extends Error {
  override readonly name = 'ImportVersionError';
}

export interface Upload {
  /** When S3 stored the file: an ISO 8601 time (only its whole seconds count). */
  uploadedAt: string;
  /**
   * S3's sequencer of the upload (hex); none for an import without one (null where an event
   * lacked the field: EventBridge's input transformer gives no value for a missing path).
   */
  sequencer?: string | null;
  /** The import's id, hex (import/steps/work-folder.ts importIdOf). */
  importId: string;
}

/** The version of the import of one upload. */
export function importVersion({ uploadedAt, sequencer, importId }: Upload): string {
  const ms = UPLOAD_TIME.test(uploadedAt) ? Date.parse(uploadedAt) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0)
    throw new ImportVersionError(
      `the upload's time ${JSON.stringify(uploadedAt)} is not a time with its zone`,
    );
  const time = Math.floor(ms / 1000).toString(36);
  if (time.length > TIME_CHARS)
    throw new ImportVersionError(`the upload's time ${JSON.stringify(uploadedAt)} is too late`);
  const seq = (sequencer ?? '').toUpperCase().replace(/^0+/, '');
  if (!/^[0-9A-F]*$/.test(seq) || seq.length > SEQUENCER_CHARS)
    throw new ImportVersionError(
      `S3's sequencer ${JSON.stringify(sequencer)} is not a hex number of at most ${SEQUENCER_CHARS} digits`,
    );
  if (!/^[0-9a-f]+$/.test(importId) || importId.length < ID_CHARS)
    throw new ImportVersionError(`the import id ${JSON.stringify(importId)} is not hex`);
  return (
    time.padStart(TIME_CHARS, '0') +
    seq.padStart(SEQUENCER_CHARS, '0') +
    importId.slice(0, ID_CHARS)
  );
}

/**
 * The version of an import that no upload started (the local demo load, tests, the bench): from
 * its own start, the milliseconds standing in for a sequencer.
 */
export function startVersion(now = Date.now()): string {
  return importVersion({
    uploadedAt: new Date(now).toISOString(),
    sequencer: now.toString(16),
    importId: randomBytes(ID_CHARS / 2).toString('hex'),
  });
}

/** When the import of this version was put, in whole seconds as milliseconds. */
export function uploadedAtMs(version: string): number {
  return parseInt(version.slice(0, TIME_CHARS), 36) * 1000;
}

/** Whether two versions' uploads fall in the same second (ordered by their tiebreak alone). */
export const sameSecond = (a: string, b: string): boolean =>
  a.slice(0, TIME_CHARS) === b.slice(0, TIME_CHARS);

/**
 * Until when (epoch seconds) the tombstone of a deletion of this version is kept: past the
 * horizon of every earlier import (uploaded before this one), after which none may write
 * (assertWithinHorizon). DynamoDB's TTL removes it some time after; until then it still holds.
 */
export const tombstoneExpiry = (version: string): number =>
  Math.ceil((uploadedAtMs(version) + TOMBSTONE_DAYS * DAY_MS) / 1000);

/**
 * An import writes only within IMPORT_WRITE_HORIZON_DAYS of its upload: after that the tombstones
 * of later deletions may be gone, and a write could bring a deleted record back.
 */
export function assertWithinHorizon(version: string, now = Date.now()): void {
  const put = uploadedAtMs(version);
  if (now - put > IMPORT_WRITE_HORIZON_DAYS * DAY_MS)
    throw new ImportVersionError(
      `the file was put at ${new Date(put).toISOString()}, more than ${IMPORT_WRITE_HORIZON_DAYS} days ago: ` +
        'deletions are remembered only that long, so nothing of it is written; put the file again to import it',
    );
}
