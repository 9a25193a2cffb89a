/** Plan: the file's SHA-256 and parts (the manifest the maps read); "import started". */
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { assertWithinHorizon, importVersion } from '../../core/import-version.ts';
import { importAuditEvent } from '../audit.ts';
import { DEFAULT_PART_BYTES, planParts } from '../parts.ts';
import { uploader, type ExecutionInput, type ImportReport, type StepDeps } from './step.ts';
import {
  body,
  claimImport,
  importIdOf,
  manifestKey,
  objectVersion,
  readJson,
  reportKey,
  writeJson,
} from './work-folder.ts';

/**
 * The key of the object an S3 event names. S3 documents its notifications' keys as URL-encoded
 * (a space as `+`); EventBridge has been seen to deliver them both ways. The key as delivered is
 * tried first, then its decoded forms; the version id, unique to one object, tells them apart.
 */
export async function objectKeyOf(
  s3: S3Client,
  bucket: string,
  key: string,
  versionId: string,
): Promise<string> {
  const decoded = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return undefined;
    }
  };
  const candidates = [key, decoded(key.replace(/\+/g, ' ')), decoded(key)];
  const tried = new Set<string>();
  for (const candidate of candidates) {
    if (candidate === undefined || tried.has(candidate)) continue;
    tried.add(candidate);
    try {
      await s3.send(
        new HeadObjectCommand({ Bucket: bucket, Key: candidate, ...objectVersion(versionId) }),
      );
      return candidate;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name !== 'NotFound' && name !== 'NoSuchKey' && name !== 'NoSuchVersion') throw error;
    }
  }
  throw new Error(
    `no version ${versionId} of ${JSON.stringify(key)} in ${bucket} (read as delivered and URL-decoded)`,
  );
}

export interface PlanResult {
  importId: string;
  /** The import's version, from its upload (core/import-version.ts): every part writes it. */
  version: string;
  /** The object's key as S3 stores it (the event's, decoded where it came URL-encoded). */
  key: string;
  sha256: string;
  parts: number;
  manifestKey: string;
  startedAt: string;
  alreadyImported?: true;
  /**
   * Another execution of the same upload holds its claim (a repeated event): that one imports it,
   * this one writes nothing, not even a report, and ends (the workflow's Duplicate).
   */
  claimedBy?: string;
}

export async function plan(deps: StepDeps, event: ExecutionInput): Promise<PlanResult> {
  const key = await objectKeyOf(deps.s3, event.bucket, event.key, event.versionId);
  const input = { ...event, key };
  const importId = importIdOf(key, input.versionId);
  const startedAt = new Date().toISOString();
  const version = importVersion({
    uploadedAt: event.eventTime,
    sequencer: event.sequencer,
    importId,
  });
  const done = await readJson<ImportReport>(deps.s3, input.bucket, reportKey(importId));
  if (done?.outcome === 'imported')
    return {
      importId,
      version,
      key,
      sha256: done.sha256 ?? '',
      parts: 0,
      manifestKey: manifestKey(importId),
      startedAt: done.startedAt ?? startedAt,
      alreadyImported: true,
    };
  // One upload, one import: EventBridge delivers at least once, and the rule starts an unnamed
  // execution each time. The first to claim the upload imports it; a retry of this step, or a
  // redrive, is the same execution and passes its own claim.
  const execution = event.execution?.id;
  if (execution === undefined)
    throw new Error('Plan was started without its execution ($$.Execution.Id): nothing claimed');
  const holder = await claimImport(deps.s3, input.bucket, importId, execution);
  if (holder !== execution)
    return {
      importId,
      version,
      key,
      sha256: '',
      parts: 0,
      manifestKey: manifestKey(importId),
      startedAt,
      claimedBy: holder,
    };
  // Refused as a whole, before anything is written, once deletions may have been forgotten.
  assertWithinHorizon(version);
  const { sha256, parts } = await planParts(
    await body(deps.s3, input),
    deps.partBytes ?? DEFAULT_PART_BYTES,
  );
  await writeJson(deps.s3, input.bucket, manifestKey(importId), parts);
  deps.audit(
    importAuditEvent(importId, {
      kind: 'import-started',
      key: input.key,
      versionId: input.versionId,
      sha256,
      parts: parts.length,
      ...uploader(input),
    }),
  );
  return {
    importId,
    version,
    key,
    sha256,
    parts: parts.length,
    manifestKey: manifestKey(importId),
    startedAt,
  };
}
