/**
 * `npm run import -- <file>` on `npm start`. The file goes into the local drop, and the workflow
 * runs in this process (local/step-functions/import-runner.ts) up to its report. The drop's
 * settings come from the environment.
 */
import { positiveFromEnv } from '../../core/env.ts';
import { incomingKey } from './drop.ts';
import type { ImportReport } from '../../import/steps/step.ts';
import { IMPORT_CONCURRENCY } from '../../stage/settings.ts';
import { FUNCTION_ENV } from '../../core/function-env.ts';
import {
  expireImportObjects,
  removeWorkFiles,
} from '../../local/step-functions/import-bucket-lifecycle.ts';
import {
  localStepDeps,
  runWorkflow,
  type LocalDropOptions,
  type LocalDropTarget,
} from '../../local/step-functions/import-runner.ts';
import { putIntoLocalDrop } from './local-upload.ts';

/**
 * The local drop's settings from the environment: IMPORT_CONCURRENCY is the stage's
 * `importConcurrency` (parts checked or written at once, default and bounds the same),
 * IMPORT_PART_BYTES the part size, as the stage's functions read it (tests and the bench cut
 * small files into parts). A value that cannot be used is a ConfigError naming the variable.
 */
export function localDropOptionsFromEnv(
  env: Record<string, string | undefined> = process.env,
): Pick<LocalDropOptions, 'concurrency' | 'partBytes'> {
  const concurrency = positiveFromEnv(env, 'IMPORT_CONCURRENCY', IMPORT_CONCURRENCY.max);
  const partBytes = positiveFromEnv(env, FUNCTION_ENV.importPartBytes);
  return {
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(partBytes === undefined ? {} : { partBytes }),
  };
}

/** `npm run import -- <file>` locally: the file into the drop, the workflow run, its report. */
export async function dropFile(
  target: LocalDropTarget,
  file: string,
  options: LocalDropOptions = {},
): Promise<ImportReport> {
  const deps = localStepDeps(target, options.partBytes);
  try {
    await expireImportObjects(deps.s3, target.importBucketName);
    const input = await putIntoLocalDrop(
      deps.s3,
      target.importBucketName,
      file,
      options.key ?? incomingKey(file),
      {
        onProgress: (sent, total) =>
          options.onProgress?.({
            phase: 'uploading',
            parts: 0,
            partsDone: 0,
            records: 0,
            bytes: { sent, total },
          }),
      },
    );
    const report = await runWorkflow(deps, input, options);
    await removeWorkFiles(deps.s3, target.importBucketName, report.importId);
    return report;
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}
