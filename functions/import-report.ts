/**
 * Report: reports/<import id>.json and the audit event "import ended".
 * Its payload and result, and the work: import/steps.ts (the steps: docs/import.md).
 */
import { report, type ReportInput, type ReportResult, type StepDeps } from '../import/steps';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: ReportInput): Promise<ReportResult> =>
    report(deps, input);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
