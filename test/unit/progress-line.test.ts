/**
 * `npm run import`'s progress line (commands/import/progress-line.ts): it moves at least every 10 s while
 * an import runs, whatever the import says and whatever IMPORT_PROGRESS_SECONDS asks, and it
 * counts records, not only parts.
 */
import { jest } from '@jest/globals';
import type { Progress } from '../../import/progress.ts';
import { progressLine, progressText } from '../../commands/import/progress-line.ts';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const writing: Progress = { phase: 'writing', parts: 8, partsDone: 3, records: 7500 };

function line(tty: boolean, everySeconds?: number) {
  const written: string[] = [];
  const progress = progressLine({
    tty,
    write: (text) => written.push(text),
    now: () => Date.now(),
    ...(everySeconds === undefined ? {} : { everySeconds }),
  });
  return { written, progress };
}

test('not a terminal: a plain line every IMPORT_PROGRESS_SECONDS, none before, elapsed seconds in it', () => {
  const { written, progress } = line(false, 3);
  progress.update(writing);
  jest.advanceTimersByTime(2999);
  expect(written).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(written).toEqual(['Import writing: 3 of 8 parts, 7500 records (3 s)\n']);
  // Nothing new from the import: the line still comes, its seconds moving.
  jest.advanceTimersByTime(3000);
  expect(written.at(-1)).toBe('Import writing: 3 of 8 parts, 7500 records (6 s)\n');
  progress.end();
  jest.advanceTimersByTime(60_000);
  expect(written).toHaveLength(2);
});

test('not a terminal: at least every 10 s, however long IMPORT_PROGRESS_SECONDS asks', () => {
  const { written, progress } = line(false, 86_400);
  // An upload the local drop says nothing of: the line says the file is going up.
  jest.advanceTimersByTime(10_000);
  expect(written).toEqual(['Import uploading (10 s)\n']);
  jest.advanceTimersByTime(10_000);
  expect(written).toHaveLength(2);
  progress.end();
});

test('a terminal: one line redrawn every second, a new phase at once, ended with a newline', () => {
  const { written, progress } = line(true);
  progress.update({
    phase: 'uploading',
    parts: 0,
    partsDone: 0,
    records: 0,
    bytes: { sent: 8 * 1024 * 1024, total: 20 * 1024 * 1024 },
  });
  jest.advanceTimersByTime(1000);
  expect(written).toEqual(['\r\x1b[KImport uploading: 8.0 MiB of 20.0 MiB sent (1 s)']);
  jest.advanceTimersByTime(500);
  progress.update({ phase: 'starting', parts: 0, partsDone: 0, records: 0 });
  expect(written.at(-1)).toBe(
    "\r\x1b[KImport starting: waiting for the stage's workflow to start (1 s)",
  );
  jest.advanceTimersByTime(500);
  expect(written.at(-1)).toBe(
    "\r\x1b[KImport starting: waiting for the stage's workflow to start (2 s)",
  );
  progress.end();
  expect(written.at(-1)).toBe('\n');
});

test('the words: records while checking and writing, bytes while uploading', () => {
  expect(progressText(writing)).toBe('Import writing: 3 of 8 parts, 7500 records');
  expect(progressText({ phase: 'checking', parts: 8, partsDone: 2, records: 0 })).toBe(
    'Import checking: 2 of 8 parts',
  );
  expect(progressText({ phase: 'checking', parts: 8, partsDone: 2, records: 4000 })).toBe(
    'Import checking: 2 of 8 parts, 4000 records',
  );
  expect(
    progressText({
      phase: 'uploading',
      parts: 0,
      partsDone: 0,
      records: 0,
      bytes: { sent: 0, total: 512 },
    }),
  ).toBe('Import uploading: 0 bytes of 512 bytes sent');
});

test("writing: the file's record total, and once the pace is known, the time left", () => {
  const { written, progress } = line(false, 5);
  progress.update({ phase: 'checking', parts: 8, partsDone: 8, records: 20_000 });
  jest.advanceTimersByTime(5000);
  progress.update({ phase: 'writing', parts: 8, partsDone: 0, records: 0, total: 20_000 });
  jest.advanceTimersByTime(5000);
  expect(written.at(-1)).toBe('Import writing: 0 of 8 parts, 0 of 20000 records (10 s)\n');
  // 2,000 records in the first 10 s of writing: 18,000 more take about 90 s.
  progress.update({ phase: 'writing', parts: 8, partsDone: 1, records: 2000, total: 20_000 });
  jest.advanceTimersByTime(5000);
  expect(written.at(-1)).toBe(
    'Import writing: 1 of 8 parts, 2000 of 20000 records, about 2 min left (15 s)\n',
  );
  progress.update({ phase: 'writing', parts: 8, partsDone: 7, records: 19_000, total: 20_000 });
  jest.advanceTimersByTime(5000);
  expect(written.at(-1)).toBe(
    'Import writing: 7 of 8 parts, 19000 of 20000 records, about 1 s left (20 s)\n',
  );
  progress.end();
});
