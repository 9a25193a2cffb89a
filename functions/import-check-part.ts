/**
 * CheckParts' item: one part checked, its findings kept for Verify.
 * Its payload and result, and the work: import/steps/ (the steps: docs/import.md).
 */
import { checkPartStep, type CheckResult } from '../import/steps/check-part.ts';
import { type PartInput, type StepDeps } from '../import/steps/step.ts';
import { importDepsFromEnv } from './shared/import-deps.ts';
import { onFirstCall } from './shared/on-first-call.ts';

export const createHandler =
  (deps: StepDeps) =>
  (input: PartInput): Promise<CheckResult> =>
    checkPartStep(deps, input);

export const handler = onFirstCall(() => createHandler(importDepsFromEnv()));
