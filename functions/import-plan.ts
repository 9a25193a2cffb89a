/**
 * Plan: the file's SHA-256 and parts (the manifest); audit "import started".
 * Its payload and result, and the work: import/steps.ts (the steps: docs/import.md).
 */
import { plan, type ExecutionInput, type PlanResult, type StepDeps } from '../import/steps';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: ExecutionInput): Promise<PlanResult> =>
    plan(deps, input);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
