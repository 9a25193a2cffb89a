/** WriteParts' item: one part's records written, one audit event each. Step payloads: IMPORT-CONTRACT.md. */
import { writePart, type PartInput, type PartCounts, type StepDeps } from '../import/steps';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: PartInput): Promise<PartCounts> =>
    writePart(deps, input);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
