/**
 * Run only by test/unit/quiet-output.test.ts, in a child jest (outside testMatch): the functions'
 * sinks write as deployed, in a test that passes and in one that fails on purpose.
 */
import { log } from '../../functions/shared/logger.ts';
import { stdoutImportAudit } from '../../import/audit.ts';

function writeLogs(marker: string): void {
  log({ level: 'INFO', message: marker, requestId: 'fixture', apiRequestId: undefined });
  stdoutImportAudit({ marker } as never);
  console.log(`console ${marker}`);
  process.stderr.write(`stderr ${marker}\n`);
}

test('passes, its logs unseen', () => {
  writeLogs('passing-marker');
});

test('fails, its logs shown', () => {
  writeLogs('failing-marker');
  expect('failing-marker').toBe('a failure on purpose');
});
