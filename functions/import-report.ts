/** Report: reports/<import id>.json and the "import ended" audit event. Step payloads: IMPORT-CONTRACT.md. */
import { report, type ReportInput, type StepDeps } from '../import/steps';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: ReportInput): Promise<Awaited<ReturnType<typeof report>>> =>
    report(deps, input);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
