/**
 * Report: reports/<import id>.json and the audit event "import ended".
 * Its payload and result, and the work: import/steps/ (the steps: docs/import.md).
 */
import { report, type ReportInput, type ReportResult } from '../import/steps/report';
import { type StepDeps } from '../import/steps/step';
import { importDepsFromEnv, onFirstInvocation } from './shared/import-deps';

export const createHandler =
  (deps: StepDeps) =>
  (input: ReportInput): Promise<ReportResult> =>
    report(deps, input);

export const handler = onFirstInvocation(() => createHandler(importDepsFromEnv()));
