/** bench/RESULTS.md from the figures of one run. */
import type { Summary } from './stats';

export interface Results {
  machine: {
    date: string;
    cpu: string;
    memoryGiB: number;
    freeMemoryGiB: number;
    os: string;
    node: string;
    java: string;
    versions: Record<string, string>;
    commit: string;
    loadStart: number;
    loadEnd: number;
  };
  config: Record<string, unknown>;
  bundles?: { name: string; bytes: number; mapBytes: number }[];
  cold?: Record<
    string,
    {
      importMs: Summary;
      importedAt: Summary;
      cpuMs: Summary;
      /** Median over rounds of this bundle's figure over the reference's in the same round. */
      paired: { importedAt: number; cpuMs: number };
    }
  >;
  first?: Record<
    string,
    { respondedAt: Summary; requestMs: Summary; paired: { respondedAt: number } }
  >;
  warm?: Record<
    string,
    { handler: Summary; query: Summary; cpuMicros: { handler: number; query: number } }
  >;
  /** µs per call of a warm GET's steps, by case and step. */
  breakdown?: Record<string, Record<string, number>>;
  cost?: Record<
    string,
    {
      gets: number;
      requests: number;
      operations: Record<string, number>;
      consistentRead: boolean;
      items: number;
      capacityUnits: number;
      referenceCapacityUnits: number;
      responseBytes: number;
    }
  >;
  import?: {
    records: number;
    fileBytes: number;
    seconds: number;
    recordsPerSecond: number;
    /** CPU seconds of the import process and of DynamoDB Local's JVM during the import. */
    cpuSeconds: number;
    dynamoCpuSeconds: number;
    maxRssMiB: number;
    rssFirstHalfMedianMiB: number;
    rssSecondHalfMedianMiB: number;
    output: string;
  }[];
  /** GETs while bin/import.ts replaces the same records again and again. */
  reimport?: {
    records: number;
    rounds: number;
    readers: number;
    importSeconds: number;
    recordsPerSecond: number;
    gets: number;
    /** GETs that needed a second (consistent) read, and the most requests one GET took. */
    multiRead: number;
    maxRequests: number;
    torn: number;
    failed: number;
    single: Summary;
    multi: Summary | undefined;
  };
  throughput?: {
    target: string;
    connections: number;
    requestsPerSecond: number;
    requests: number;
    p50: number;
    p99: number;
    errors: number;
  }[];
  soak?: {
    seconds: number;
    connections: number;
    requests: number;
    requestsPerSecond: number;
    p50: number;
    p99: number;
    errors: number;
    rssFirstQuarterMiB: number;
    rssLastQuarterMiB: number;
    rssMaxMiB: number;
  };
}

export const BUDGETS = {
  /** The deployed bundles against the stock floor (issue 11): whole-process import, size, start→first response. */
  coldImport: 0.8,
  bundleSize: 0.75,
  firstResponse: 0.85,
  warmP50: 1.1,
  /** Peak RSS importing the largest file over the smallest: "flat" memory. */
  importMemory: 1.25,
  /** Soak: the stack's RSS in the last quarter of the run over the second (the first is warm-up). */
  soakMemory: 1.1,
};

const REFERENCE = 'Reference';
/** The variants that are measured for comparison, not deployed (bench/bundles.ts). */
const WITH_SOURCE_MAPS = 'GetTransaction+maps';
const CDK_DEFAULT = 'CdkDefault';
const DEPLOYED = (name: string) => ![REFERENCE, WITH_SOURCE_MAPS, CDK_DEFAULT].includes(name);
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const x = (n: number) => `${n.toFixed(3)}×`;
const kib = (n: number) => (n / 1024).toFixed(1);
const yes = (ok: boolean) => (ok ? '**yes**' : '**no**');

function table(head: string[], rows: (string | number)[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

export function writeReport(r: Results): string {
  const m = r.machine;
  const out: string[] = [];
  const budgets: (string | number)[][] = [];
  out.push(
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
  );

  const sections: string[] = [];

  if (r.bundles && r.cold) {
    const ref = r.bundles.find((b) => b.name === REFERENCE)!;
    const rows = r.bundles.map((b) => {
      const c = r.cold![b.name]!;
      return [
        b.name,
        kib(b.bytes),
        x(b.bytes / ref.bytes),
        kib(b.mapBytes),
        ms(c.importMs.p50),
        ms(c.importedAt.p50),
        ms(c.importedAt.p90),
        x(c.paired.importedAt),
        ms(c.cpuMs.p50),
        x(c.paired.cpuMs),
      ];
    });
    for (const b of r.bundles.filter((b) => DEPLOYED(b.name))) {
      const size = b.bytes / ref.bytes;
      const time = r.cold[b.name]!.paired.importedAt;
      budgets.push([
        `${b.name}: bundle size ≤ ${BUDGETS.bundleSize}× the stock floor`,
        x(size),
        yes(size <= BUDGETS.bundleSize),
      ]);
      budgets.push([
        `${b.name}: whole-process import ≤ ${BUDGETS.coldImport}× the stock floor`,
        x(time),
        yes(time <= BUDGETS.coldImport),
      ]);
    }
    sections.push(
      '## 1. Cold start: import',
      '',
      `The deployed bundles (GetTransaction, GetCustomer), built with the options \`cdk synth\` uses (BUNDLING in lib/api-function.ts), against the stock floor \`Reference\`: only DynamoDBDocumentClient and one QueryCommand (bench/reference.ts), bundled as a plain project ships the stock SDK (the same esbuild options, ESM and minified, without this project's credential alias, no source map). Two variants for comparison: \`GetTransaction+maps\`, the same bundle with a linked source map run with \`--enable-source-maps\` (how the functions ran before), and \`CdkDefault\`, the GetTransaction function as a default \`NodejsFunction\` builds it (CommonJS, not minified, \`@aws-sdk/*\` and \`@smithy/*\` left external and resolved from node_modules through NODE_PATH, as Lambda resolves them from the SDK in its runtime). Each run is a fresh Node.js ${m.node} process with the Lambda-like environment (credentials, region, function variables) and the deployed NODE_OPTIONS (none), that imports the bundle, its init work included; ${r.cold[REFERENCE]!.importMs.n} rounds, every bundle once per round, order rotated. Started→imported is from process start, Node.js bootstrap included (the whole process); CPU is the process's user + system time at that point. Ratios are paired: the median over rounds of the bundle's figure over the reference's in the same round.`,
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
    const maps = r.cold[WITH_SOURCE_MAPS];
    const plain = r.cold.GetTransaction;
    if (maps && plain)
      sections.push(
        '',
        `Runtime source maps (\`--enable-source-maps\` with the linked map) cost ${x(maps.paired.importedAt / plain.paired.importedAt)} the whole-process import of the same bundle without them (${x(maps.paired.cpuMs / plain.paired.cpuMs)} the CPU).`,
      );
  }

  if (r.first) {
    const ref = r.first[REFERENCE]!;
    for (const [name, f] of Object.entries(r.first).filter(([n]) => DEPLOYED(n)))
      budgets.push([
        `${name}: process start → first response ≤ ${BUDGETS.firstResponse}× the stock floor`,
        x(f.paired.respondedAt),
        yes(f.paired.respondedAt <= BUDGETS.firstResponse),
      ]);
    sections.push(
      '',
      '## 2. Cold start: process start → first response',
      '',
      `Time from process start to the first response of each handler, in a fresh process against DynamoDB Local reached over TLS as DynamoDB is in AWS (bench/tls-proxy.ts; records imported first), against the stock floor doing its one Query (of transaction 1's item collection); the variants answer the GetTransaction request. ${ref.respondedAt.n} rounds, order rotated every round, after two unmeasured rounds; ratios paired as above.`,
      '',
      table(
        [
          'Bundle',
          'Start→response p50 ms',
          'p90 ms',
          'Ratio (paired)',
          'Of which the request p50 ms',
          'Ratio (p50)',
        ],
        Object.entries(r.first).map(([name, f]) => [
          name,
          ms(f.respondedAt.p50),
          ms(f.respondedAt.p90),
          x(f.paired.respondedAt),
          ms(f.requestMs.p50),
          x(f.requestMs.p50 / ref.requestMs.p50),
        ]),
      ),
    );
    const cdk = r.first[CDK_DEFAULT];
    const ours = r.first.GetTransaction;
    if (cdk && ours)
      sections.push(
        '',
        `**Against a default CDK function:** GetTransaction answers its first request ${(cdk.paired.respondedAt / ours.paired.respondedAt).toFixed(2)}× as fast as the same code built as a default \`NodejsFunction\` (start→response ${ms(ours.respondedAt.p50)} ms against ${ms(cdk.respondedAt.p50)} ms, p50).`,
      );
  }

  if (r.warm) {
    const rows = Object.entries(r.warm).map(([name, w]) => {
      const ratio = w.handler.p50 / w.query.p50;
      budgets.push([
        `Warm p50, ${name}: ≤ ${BUDGETS.warmP50}× the raw Query`,
        x(ratio),
        yes(ratio <= BUDGETS.warmP50),
      ]);
      return [
        name,
        ms(w.handler.p50),
        ms(w.handler.p99),
        ms(w.query.p50),
        ms(w.query.p99),
        x(ratio),
        x(w.handler.p99 / w.query.p99),
        ((w.handler.p50 - w.query.p50) * 1000).toFixed(0),
        w.cpuMicros.handler.toFixed(0),
        w.cpuMicros.query.toFixed(0),
        x(w.cpuMicros.handler / w.cpuMicros.query),
      ];
    });
    const n = Object.values(r.warm)[0]?.handler.n ?? 0;
    sections.push(
      '',
      '## 3. Warm overhead',
      '',
      `The production handler (its bundle) invoked in-process for the same record again and again, ${n} times after ${r.config.warmWarmup} unmeasured invocations, alternating with a raw QueryCommand of the same item collection in the same process (the reference bundle's client), against DynamoDB Local. The functions' log lines go to a file. CPU: the process's user + system time per call (process.cpuUsage), which other work on the machine does not inflate as much as wall time.`,
      '',
      table(
        [
          'Case',
          'Handler p50 ms',
          'Handler p99 ms',
          'Raw Query p50 ms',
          'Raw Query p99 ms',
          'p50 ratio',
          'p99 ratio',
          'p50 overhead µs',
          'CPU µs per handler call',
          'CPU µs per raw Query',
          'CPU ratio',
        ],
        rows,
      ),
    );
  }

  if (r.breakdown) {
    const cases = Object.keys(r.breakdown);
    const steps = Object.keys(r.breakdown[cases[0]!]!);
    sections.push(
      '',
      "Where a warm GET's own time goes, on an otherwise idle event loop (bench/children/breakdown.ts: the source modules under tsx, DynamoDB stubbed out, each step timed on its own), µs per call:",
      '',
      table(
        ['Step', ...cases],
        steps.map((step) => [step, ...cases.map((c) => r.breakdown![c]![step]!.toFixed(1))]),
      ),
    );
  }

  if (r.throughput) {
    const refName = 'reference (one Query)';
    const refAt = (c: number) =>
      r.throughput!.find((t) => t.target === refName && t.connections === c);
    const errors = r.throughput.reduce((a, t) => a + t.errors, 0);
    budgets.push([
      'Throughput runs: zero errors (non-2xx, timeouts, socket errors)',
      String(errors),
      yes(errors === 0),
    ]);
    sections.push(
      '',
      '## 4. Throughput through the local gateway',
      '',
      `autocannon against the local API Gateway stand-in (local/gateway.ts: JWT authorizer, payload 2.0 events) on 127.0.0.1, the routes served by the production bundles, \`GET /reference/{pk}\` by the reference bundle behind the same authorizer; at each level ${r.config.throughputRounds} runs of ${r.config.durationSeconds} s per target, interleaved, after a ${r.config.warmupSeconds} s warm-up of each. Latency: median of the runs' p50, highest of their p99, in whole ms as autocannon reports them. Load generator, gateway and DynamoDB Local share this machine's cores. Errors count non-2xx answers, timeouts and socket errors.`,
      '',
      table(
        [
          'Target',
          'Connections',
          'Requests/s',
          'Ratio to reference',
          'p50 ms',
          'p99 ms',
          'Requests',
          'Errors',
        ],
        r.throughput.map((t) => [
          t.target,
          t.connections,
          t.requestsPerSecond.toFixed(0),
          x(t.requestsPerSecond / (refAt(t.connections)?.requestsPerSecond ?? Number.NaN)),
          t.p50,
          t.p99,
          t.requests,
          t.errors,
        ]),
      ),
    );
  }

  if (r.cost) {
    const perGet = Object.values(r.cost).map((c) => c.requests / c.gets);
    budgets.push([
      'DynamoDB requests per GET = 1',
      perGet.map((p) => p.toFixed(2)).join(', '),
      yes(perGet.every((p) => p === 1)),
    ]);
    sections.push(
      '',
      '## 5. DynamoDB cost per GET',
      '',
      "Requests counted by an HTTP proxy between the production handler and DynamoDB Local; the Query the handler sent is then sent again with `ReturnConsumedCapacity: TOTAL` (and the reference's Query of the same item collection likewise).",
      '',
      table(
        [
          'Case',
          'GETs',
          'DynamoDB requests',
          'Per GET',
          'Operations',
          'Items',
          'Consistent read',
          'Read capacity units',
          'Reference RCU',
          'Response bytes',
        ],
        Object.entries(r.cost).map(([name, c]) => [
          name,
          c.gets,
          c.requests,
          (c.requests / c.gets).toFixed(2),
          Object.entries(c.operations)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
          c.items,
          c.consistentRead ? 'yes' : 'no (eventually consistent)',
          c.capacityUnits,
          c.referenceCapacityUnits,
          c.responseBytes,
        ]),
      ),
    );
  }

  if (r.import?.length) {
    const base = r.import[0]!;
    const last = r.import.at(-1)!;
    const memory = last.maxRssMiB / base.maxRssMiB;
    budgets.push([
      `Import memory flat: peak RSS at ${last.records} records ≤ ${BUDGETS.importMemory}× at ${base.records}`,
      x(memory),
      yes(memory <= BUDGETS.importMemory),
    ]);
    sections.push(
      '',
      '## 6. Import',
      '',
      "`bin/import.ts` (tsx, as `npm run import` runs it) in a child process importing generated records (four transactions with 1 to 3 currency lines to one customer with 1 or 2 risk assessments) into a fresh table of DynamoDB Local, which runs on the same cores. Peak RSS is the child's own maxRSS at exit; RSS is also sampled every 200 ms. CPU seconds (user + system) of the import process and of DynamoDB Local's JVM over the import tell which one bounds the rate: on 2 cores, the two together near 2 × the wall time means the machine is saturated.",
      '',
      table(
        [
          'Records',
          'File MiB',
          'Seconds',
          'Records/s',
          'Ratio',
          'Import CPU s',
          'DynamoDB Local CPU s',
          'Peak RSS MiB',
          'Ratio',
          'RSS median, 1st half MiB',
          '2nd half MiB',
        ],
        r.import.map((i) => [
          i.records,
          (i.fileBytes / 2 ** 20).toFixed(1),
          i.seconds.toFixed(1),
          i.recordsPerSecond.toFixed(0),
          x(i.recordsPerSecond / base.recordsPerSecond),
          i.cpuSeconds.toFixed(1),
          i.dynamoCpuSeconds.toFixed(1),
          i.maxRssMiB.toFixed(0),
          x(i.maxRssMiB / base.maxRssMiB),
          i.rssFirstHalfMedianMiB.toFixed(0),
          i.rssSecondHalfMedianMiB.toFixed(0),
        ]),
      ),
    );
  }

  if (r.soak) {
    const k = r.soak;
    const growth = k.rssLastQuarterMiB / k.rssFirstQuarterMiB;
    budgets.push(['Soak: zero errors', k.errors, yes(k.errors === 0)]);
    budgets.push([
      `Soak: memory stable, RSS last quarter ≤ ${BUDGETS.soakMemory}× second quarter (after warm-up)`,
      x(growth),
      yes(growth <= BUDGETS.soakMemory),
    ]);
    sections.push(
      '',
      '## 7. Soak',
      '',
      `Both routes mixed (a 1-line and a 50-line transaction, a customer) through the local gateway with valid tokens, ${k.connections} connections, bounded by ${r.config.soakSeconds} s and ${r.config.soakMaxRequests} requests, loopback only. RSS of the process holding the gateway, the functions, the local Cognito and S3 (DynamoDB Local is its own JVM) sampled every second.`,
      '',
      table(
        [
          'Seconds',
          'Requests',
          'Requests/s',
          'p50 ms',
          'p99 ms',
          'Errors',
          'RSS 2nd quarter MiB',
          'RSS last quarter MiB',
          'Ratio',
          'RSS max MiB',
        ],
        [
          [
            k.seconds.toFixed(0),
            k.requests,
            k.requestsPerSecond.toFixed(0),
            k.p50,
            k.p99,
            k.errors,
            k.rssFirstQuarterMiB.toFixed(0),
            k.rssLastQuarterMiB.toFixed(0),
            x(growth),
            k.rssMaxMiB.toFixed(0),
          ],
        ],
      ),
    );
  }

  if (r.reimport) {
    const k = r.reimport;
    budgets.push([
      'Reads during a re-import: none torn, none failed',
      k.torn + k.failed,
      yes(k.torn + k.failed === 0),
    ]);
    sections.push(
      '',
      '## 8. Reads during a re-import',
      '',
      `${k.readers} readers GET (getCollection, as the functions do, its DynamoDB requests counted) ${k.records} transactions while \`bin/import.ts\` replaces them ${k.rounds} times, 20 currency lines <-> 8, in DynamoDB Local. A GET needs a second, consistent read only when its Query saw fewer children of the head's version than the head counts (SPEC 6.1, docs/architecture.md). Torn = total and line count from different imports.`,
      '',
      table(
        [
          'GETs',
          'Needed a 2nd read',
          'Most requests in one GET',
          'Torn',
          'Failed',
          'p50 ms, one read',
          'p99 ms, one read',
          'p50 ms, 2+ reads',
          'p99 ms, 2+ reads',
          'Import records/s meanwhile',
        ],
        [
          [
            k.gets,
            `${k.multiRead} (${((100 * k.multiRead) / k.gets).toFixed(2)} %)`,
            k.maxRequests,
            k.torn,
            k.failed,
            ms(k.single.p50),
            ms(k.single.p99),
            k.multi ? ms(k.multi.p50) : '-',
            k.multi ? ms(k.multi.p99) : '-',
            k.recordsPerSecond.toFixed(0),
          ],
        ],
      ),
    );
  }

  out.push(
    '',
    '## Budgets',
    '',
    table(['Budget', 'Measured', 'Holds'], budgets),
    '',
    ...sections,
    '',
  );
  return out.join('\n');
}
