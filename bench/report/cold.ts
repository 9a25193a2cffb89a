/** 1. Cold start: import: bundle sizes and whole-process import against the stock floor. */
import { isDeployed, REFERENCE, REFERENCE_READ, WITH_SOURCE_MAPS } from '../bundle-names.ts';
import type { Results } from '../results.ts';
import { BUDGETS } from './budgets.ts';
import { type BudgetRow, kib, ms, paired, type ReportPart, table, x, yes } from './format.ts';

/** Each deployed bundle's size and whole-process import against the stock floor's. */
function coldBudgets(
  bundles: NonNullable<Results['bundles']>,
  cold: NonNullable<Results['cold']>,
): BudgetRow[] {
  const ref = bundles.find((b) => b.name === REFERENCE)!;
  return bundles
    .filter((b) => isDeployed(b.name))
    .flatMap((b) => {
      const size = b.bytes / ref.bytes;
      const time = cold[b.name]!.paired.importedAt;
      return [
        [
          `${b.name}: bundle size ≤ ${BUDGETS.bundleSize}× the stock floor`,
          x(size),
          yes(size <= BUDGETS.bundleSize),
        ],
        [
          `${b.name}: whole-process import ≤ ${BUDGETS.coldImport}× the stock floor`,
          paired(time),
          yes(time.ratio <= BUDGETS.coldImport),
        ],
      ];
    });
}

export function renderCold(r: Results): ReportPart | undefined {
  if (!(r.bundles && r.cold)) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const ref = r.bundles.find((b) => b.name === REFERENCE)!;
  // The warm reference (ReferenceRead) is built but not cold-started: not a row here.
  const rows = r.bundles
    .filter((b) => r.cold![b.name])
    .map((b) => {
      const c = r.cold![b.name]!;
      return [
        b.name,
        kib(b.bytes),
        x(b.bytes / ref.bytes),
        kib(b.mapBytes),
        ms(c.importMs.p50),
        ms(c.importedAt.p50),
        ms(c.importedAt.p90),
        paired(c.paired.importedAt),
        ms(c.cpuMs.p50),
        paired(c.paired.cpuMs),
      ];
    });
  budgets.push(...coldBudgets(r.bundles, r.cold));
  lines.push(
    '## 1. Cold start: import',
    '',
    `The deployed bundles (Transactions, Customers), built with the options \`cdk synth\` uses (BUNDLING in lib/project-function.ts), against the stock floor \`Reference\`: only DynamoDBDocumentClient and one QueryCommand (bench/reference.ts), bundled as a plain project ships the stock SDK (the same esbuild options, ESM and minified, without this project's credential alias, no source map). Two variants for comparison: \`Transactions+maps\`, the same bundle with a linked source map run with \`--enable-source-maps\` (how the functions ran before), and \`CdkDefault\`, the Transactions function as a default \`NodejsFunction\` builds it (CommonJS, not minified, \`@aws-sdk/*\` and \`@smithy/*\` left external and resolved from node_modules through NODE_PATH, as Lambda resolves them from the SDK in its runtime). Each run is a fresh Node.js ${r.machine.node} process with the Lambda-like environment (credentials, region, function variables) and the deployed NODE_OPTIONS (none), that imports the bundle, its init work included; ${r.cold[REFERENCE]!.importMs.n} rounds, every bundle once per round, order rotated. Started→imported is from process start, Node.js bootstrap included (the whole process); CPU is the process's user + system time at that point. Ratios are paired: the median over rounds of the bundle's figure over the reference's in the same round; in parentheses the lowest and highest median of the rounds cut into consecutive blocks, how far the figure moves within the run.`,
    '',
    table(
      [
        'Bundle',
        'Size KiB',
        'Size ratio',
        'Map KiB',
        'Import alone p50 ms',
        'Started→imported p50 ms',
        'p90 ms',
        'Ratio (paired)',
        'CPU p50 ms',
        'CPU ratio (paired)',
      ],
      rows,
    ),
  );
  const read = r.bundles.find((b) => b.name === REFERENCE_READ);
  if (read)
    lines.push(
      '',
      `The warm reference \`ReferenceRead\` (bench/reference-read.ts: the floor's client sending a raw GetItem and the raw access-state UpdateItem, section 3) is a bundle of its own, ${kib(read.bytes)} KiB, so that the floor above stays one Document Client and one Query; it is not cold-started.`,
    );
  const maps = r.cold[WITH_SOURCE_MAPS];
  const plain = r.cold.Transactions;
  if (maps && plain)
    lines.push(
      '',
      `Runtime source maps (\`--enable-source-maps\` with the linked map) cost ${x(maps.paired.importedAt.ratio / plain.paired.importedAt.ratio)} the whole-process import of the same bundle without them (${x(maps.paired.cpuMs.ratio / plain.paired.cpuMs.ratio)} the CPU).`,
    );
  return { budgets, lines };
}
