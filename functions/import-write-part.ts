/**
 * WriteParts' item: one part's records written, one audit event each.
 * Its payload and result, and the work: import/steps.ts (the steps: docs/import.md).
 */
import {
  writePart,
  type PartInput,
  type PartCounts,
  type StepContext,
  type StepDeps,
} from '../import/steps';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: PartInput, context?: StepContext, signal?: AbortSignal): Promise<PartCounts> =>
    writePart(deps, input, context, signal);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
