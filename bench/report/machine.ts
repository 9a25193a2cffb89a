/** The report's title, how the figures were taken, and the machine they were taken on. */
import type { Results } from '../results.ts';
import { table } from './format.ts';

export function renderMachine(r: Results): string[] {
  const m = r.machine;
  return [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run.ts) on ${m.date}${r.config.quick ? ' with `--quick`: a smoke run, not figures to quote' : ''}.`,
    'Each figure is compared with a reference measured side by side in the same run',
    '(alternating runs, so that drift and the noise of other work on the machine fall on both).',
    '',
    table(
      ['Machine', ''],
      [
        ['CPU', m.cpu],
        ['Memory', `${m.memoryGiB} GiB (${m.freeMemoryGiB} GiB free at start)`],
        ['OS', m.os],
        ['Node.js', m.node],
        ['Java (DynamoDB Local)', m.java],
        [
          'Versions',
          Object.entries(m.versions)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
        ],
        ['Commit', m.commit],
        [
          'Load average (1 min) at start / end',
          `${m.loadStart.toFixed(2)} / ${m.loadEnd.toFixed(2)}`,
        ],
      ],
    ),
  ];
}
