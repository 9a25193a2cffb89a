/**
 * Verify: every part's findings merged; the same record in two parts caught.
 * Its payload and result, and the work: import/steps/ (the steps: docs/import.md).
 */
import { verify, type VerifyInput, type VerifyResult } from '../import/steps/verify.ts';
import { type StepDeps } from '../import/steps/step.ts';
import { importDepsFromEnv } from './shared/import-deps.ts';
import { onFirstCall } from './shared/on-first-call.ts';

export const createHandler =
  (deps: StepDeps) =>
  (input: VerifyInput): Promise<VerifyResult> =>
    verify(deps, input);

export const handler = onFirstCall(() => createHandler(importDepsFromEnv()));
