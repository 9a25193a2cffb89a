/** Verify: every part's findings merged; the same record in two parts caught. Step payloads: IMPORT-CONTRACT.md. */
import { verify, type StepDeps } from '../import/steps';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: Parameters<typeof verify>[1]): Promise<Awaited<ReturnType<typeof verify>>> =>
    verify(deps, input);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
