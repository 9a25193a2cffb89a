/**
 * A report for every import (SPEC 9): when Report itself fails, its Catch runs ReportFallback
 * (stage/import-workflow.ts), which writes `reports/<import id>.json` saying the import failed,
 * Report's error by its name (never its message, which might quote the file), and the error
 * that had stopped the import before, run by the local runner's interpreter as Step Functions
 * runs it.
 */
import { jest } from '@jest/globals';
import { printReport } from '../../commands/import/report-lines.ts';
import { type ExecutionInput } from '../../import/steps/step.ts';
import {
  localStepDeps,
  runWorkflow,
  type Handler,
  type LocalDropOptions,
} from '../../local/step-functions/import-runner.ts';
import { line, transaction } from '../fixtures.ts';
import { startTestDrop } from '../support/drop.ts';

let drop: Awaited<ReturnType<typeof startTestDrop>>;

beforeAll(async () => {
  drop = await startTestDrop();
}, 90_000);
afterAll(async () => drop?.stop());

const linesOf = (txnIds: number[]) =>
  `${txnIds.map((id) => line('transaction', transaction({ id, signature: null }))).join('\n')}\n`;

/** Report fails every time it is run as itself (retries included); ReportFallback runs it whole. */
const brokenReport = (calls: { report: number; fallback: number }) => (h: Handler) =>
  (async (event: { reportFailed?: string }, context, signal) => {
    if (event.reportFailed !== undefined) {
      calls.fallback += 1;
      return h(event as never, context, signal);
    }
    calls.report += 1;
    throw Object.assign(new Error('Report broke on "a value from the file" (test)'), {
      name: 'ReportBroke',
    });
  }) as Handler;

async function importWith(content: string, wrap: LocalDropOptions['wrap']) {
  const deps = localStepDeps(drop.target);
  try {
    const input: ExecutionInput = await drop.upload(deps, content);
    return await runWorkflow(deps, input, { wrap });
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}

test('Report fails: the fallback reports the import as failed, by the error name only', async () => {
  const calls = { report: 0, fallback: 0 };
  const report = await importWith(linesOf([73_000, 73_001]), { report: brokenReport(calls) });
  expect(calls.report).toBeGreaterThan(1); // retried first, as any Task
  expect(calls.fallback).toBe(1);
  expect(report).toMatchObject({
    outcome: 'failed',
    error: 'Report failed (ReportBroke): what the parts wrote is not counted',
    notCounted: true,
  });
  expect(JSON.stringify(report)).not.toContain('a value from the file');
  const ended = drop
    .auditEvents()
    .find((e) => e.importId === report.importId && e.kind === 'import-ended');
  expect(ended).toMatchObject({ outcome: 'failed', notCounted: true });
  // Both records were written before Report failed: the command must not say nothing was.
  const printed: string[] = [];
  const spy = jest
    .spyOn(console, 'error')
    .mockImplementation((text: string) => void printed.push(text));
  try {
    expect(printReport(report, 'file.jsonl', 'the table')).toBe(1);
  } finally {
    spy.mockRestore();
  }
  expect(printed.at(-1)).toMatch(/^What it wrote before it stopped is not counted/);
}, 120_000);

test('Report fails after the import failed: the report says both', async () => {
  const calls = { report: 0, fallback: 0 };
  const report = await importWith(linesOf([73_100]), {
    report: brokenReport(calls),
    writePart: () => async () => {
      throw Object.assign(new Error('the table is gone (test)'), { name: 'TableGone' });
    },
  });
  expect(calls.fallback).toBe(1);
  expect(report.outcome).toBe('failed');
  expect(report.error).toMatch(
    /^Report failed \(ReportBroke\): what the parts wrote is not counted; the import had failed before it: TableGone/,
  );
}, 120_000);
