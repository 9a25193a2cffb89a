/** 10. The local drop against the direct import, into DynamoDB Local on disk. */
import { DEFAULT_PART_BYTES } from '../../import/parts.ts';
import type { Results } from '../results.ts';
import { median } from '../stats.ts';
import { type ReportPart, table, x } from './format.ts';

type Row = NonNullable<Results['dropDisk']>[number];

/** The drop's records/s over the direct import's, pair by pair. */
export function dropDiskRatios(rows: readonly Row[]): number[] {
  const pairs = [...new Set(rows.map((r) => r.pair))];
  return pairs.map((pair) => {
    const of = (mode: Row['mode']) => rows.find((r) => r.pair === pair && r.mode === mode)!;
    return of('drop').recordsPerSecond / of('direct').recordsPerSecond;
  });
}

/** The verdict: the median at least 1, or 1 within the pairs' range (noise); else no. */
export function dropDiskVerdict(ratios: readonly number[]): string {
  if (median(ratios) >= 1) return '**yes**';
  return Math.max(...ratios) >= 1 ? '**within noise**' : '**no**';
}

export function renderDropDisk(r: Results): ReportPart | undefined {
  const rows = r.dropDisk;
  if (!rows?.length) return undefined;
  const ratios = dropDiskRatios(rows);
  const range = `${x(median(ratios))} (${x(Math.min(...ratios))}–${x(Math.max(...ratios))}, ${ratios.length} ${ratios.length === 1 ? 'pair' : 'pairs'})`;
  const rate = (mode: Row['mode']) =>
    median(rows.filter((d) => d.mode === mode).map((d) => d.recordsPerSecond));
  const first = rows[0]!;
  const parts = Math.ceil(first.fileBytes / DEFAULT_PART_BYTES);
  const lines = [
    '',
    '## 10. The local drop on disk',
    '',
    `The same generated file (${first.records.toLocaleString('en-US')} records, ${(first.fileBytes / 2 ** 20).toFixed(1)} MiB: ${parts === 1 ? 'one part' : `about ${parts} parts`}) imported by the direct import (\`local/tools/direct-import.ts\`) and by \`npm run import\`'s local drop with its defaults (\`bin/import.ts\`: one part at a time, 8 MiB parts), each in a child process as in section 9, into DynamoDB Local keeping its tables on disk (\`-dbPath\` under bench/.work/, as \`npm start\` runs it). Every import goes into a fresh, empty table (none replaces records), after one discarded import of a tenth of the records that warms DynamoDB Local's write path up; each pair is one import each way, the first way alternating from pair to pair, as many pairs as fit in the section's time (${r.config.dropDiskSeconds as number} s). Records/s is over the child's whole run, start to exit.`,
    '',
    table(
      ['Direct import, records/s (median)', 'Local drop, records/s (median)', 'Drop / direct'],
      [[rate('direct').toFixed(0), rate('drop').toFixed(0), range]],
    ),
    '',
    'Ratio: the median of the pairs, their range and count. Every import:',
    '',
    table(
      [
        'Pair',
        'Mode',
        'First',
        'Seconds',
        'Records/s',
        'Import CPU s',
        'DynamoDB Local CPU s',
        'Peak RSS MiB',
        'Load (1 min)',
      ],
      rows.map((d) => [
        d.pair,
        d.mode,
        d.first ? 'yes' : '',
        d.seconds.toFixed(1),
        d.recordsPerSecond.toFixed(0),
        d.cpuSeconds.toFixed(1),
        d.dynamoCpuSeconds.toFixed(1),
        d.maxRssMiB.toFixed(0),
        d.load.toFixed(2),
      ]),
    ),
  ];
  return {
    budgets: [
      [
        'The local drop on disk (as `npm start` runs DynamoDB Local): records/s no lower than the direct import beside it (issue 29), median of the pairs (range)',
        range,
        dropDiskVerdict(ratios),
      ],
    ],
    lines,
  };
}
