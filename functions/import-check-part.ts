/** CheckParts' item: one part checked, its findings kept for Verify. Step payloads: IMPORT-CONTRACT.md. */
import { checkPartStep, type PartInput, type StepDeps } from '../import/steps';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: PartInput): Promise<Awaited<ReturnType<typeof checkPartStep>>> =>
    checkPartStep(deps, input);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
