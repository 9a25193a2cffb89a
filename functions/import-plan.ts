/** Plan: the file's SHA-256 and its parts (the manifest), "import started". Step payloads: IMPORT-CONTRACT.md. */
import { plan, type ExecutionInput, type PlanResult, type StepDeps } from '../import/steps';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: ExecutionInput): Promise<PlanResult> =>
    plan(deps, input);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
