/**
 * Plan: the file's SHA-256 and parts (the manifest); audit "import started".
 * Its payload and result, and the work: import/steps/ (the steps: docs/import.md).
 */
import { plan, type PlanResult } from '../import/steps/plan.ts';
import { type ExecutionInput, type StepDeps } from '../import/steps/step.ts';
import { importDepsFromEnv } from './shared/import-deps.ts';
import { onFirstCall } from './shared/on-first-call.ts';

export const createHandler =
  (deps: StepDeps) =>
  (input: ExecutionInput): Promise<PlanResult> =>
    plan(deps, input);

export const handler = onFirstCall(() => createHandler(importDepsFromEnv()));
