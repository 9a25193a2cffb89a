/**
 * WriteParts' item: one part's records written, one audit event each.
 * Its payload and result, and the work: import/steps/ (the steps: docs/import.md).
 */
import { writePart } from '../import/steps/write-part.ts';
import { type PartInput, type StepContext, type StepDeps } from '../import/steps/step.ts';
import { type PartCounts } from '../import/steps/work-folder.ts';
import { importDepsFromEnv } from './shared/import-deps.ts';
import { onFirstCall } from './shared/on-first-call.ts';

export const createHandler =
  (deps: StepDeps) =>
  (input: PartInput, context?: StepContext, signal?: AbortSignal): Promise<PartCounts> =>
    writePart(deps, input, context, signal);

export const handler = onFirstCall(() => createHandler(importDepsFromEnv()));
