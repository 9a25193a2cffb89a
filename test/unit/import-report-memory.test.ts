/**
 * Report's memory (SPEC 9, docs/import.md "The report"): an import whose parts left hundreds of
 * thousands of files, as a mass delete or a re-import that changes file keys leaves, is reported
 * with the first MAX_LISTED_FILES_LEFT of them in part order and their exact count, while Report
 * holds no more than those and one part. Run in a process of its own under a small heap
 * (test/support/report-memory.ts), which also measures the live heap while Report reads.
 */
import { spawnSync } from 'node:child_process';
import { MAX_LISTED_FILES_LEFT } from '../../import/steps/work-folder.ts';
import type { ImportReport } from '../../import/steps/step.ts';

const PARTS = 500;
const ENTRIES = 1000;
/** The child's heap limit: the parts' files left, parsed together, take over 140 MB. */
const HEAP_LIMIT_MB = 64;
/** Live heap Report may add while it reads: the kept lists and one part take under 2 MB. */
const GROWTH_LIMIT = 8 * 1024 * 1024;

test(`a report of ${PARTS * ENTRIES} files left keeps the first ${MAX_LISTED_FILES_LEFT} in part order, counts them all, within a bounded heap`, () => {
  const run = spawnSync(
    process.execPath,
    [
      `--max-old-space-size=${HEAP_LIMIT_MB}`,
      '--expose-gc',
      '--disable-warning=ExperimentalWarning',
      'test/support/report-memory.ts',
      String(PARTS),
      String(ENTRIES),
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } },
  );
  expect({ status: run.status, stderr: run.stderr.slice(-2000) }).toEqual({
    status: 0,
    stderr: '',
  });
  const { heapBefore, heapPeak, report } = JSON.parse(run.stdout) as {
    heapBefore: number;
    heapPeak: number;
    report: ImportReport;
  };
  expect(heapPeak - heapBefore).toBeLessThan(GROWTH_LIMIT);

  // Every tenth line was written again (no key); the others each left one file.
  const lines = Array.from({ length: PARTS * ENTRIES }, (_, i) => i + 1);
  const left = lines.filter((line) => line % 10 !== 0);
  const again = lines.filter((line) => line % 10 === 0);
  const lineOf = (text: string) => Number(/^line (\d+):/.exec(text)?.[1]);
  expect(report.filesLeftCount).toBe(left.length);
  expect(report.filesLeft.map(lineOf)).toEqual(left.slice(0, MAX_LISTED_FILES_LEFT));
  expect(report.filesLeft[0]).toContain('"id-photos/C-1.jpg" is no longer named');
  expect(report.writtenAgain!.map(lineOf)).toEqual(again.slice(0, MAX_LISTED_FILES_LEFT));
  expect(report.counts.records).toBe(PARTS * ENTRIES);
  expect(report.parts).toEqual({ total: PARTS, written: lines.slice(0, PARTS).map((l) => l - 1) });
}, 60_000);
