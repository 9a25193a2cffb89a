/**
 * Report: reports/<import id>.json and the audit event "import ended".
 * Its payload and result, and the work: import/steps/ (the steps: docs/import.md).
 */
import { report, type ReportInput, type ReportResult } from '../import/steps/report.ts';
import { type StepDeps } from '../import/steps/step.ts';
import { importDepsFromEnv } from './shared/import-deps.ts';
import { onFirstCall } from './shared/on-first-call.ts';

export const createHandler =
  (deps: StepDeps) =>
  (input: ReportInput): Promise<ReportResult> =>
    report(deps, input);

export const handler = onFirstCall(() => createHandler(importDepsFromEnv()));
