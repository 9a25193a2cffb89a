/** 11. One WritePart on one core, and the backfill model built from it. */
import { BACKFILL, backfillModel, type BackfillRun, type StepRates } from '../backfill-model.ts';
import type { WorkerStep } from '../children/write-part.ts';
import type { Results } from '../results.ts';
import { median } from '../stats.ts';
import { type ReportPart, table, yes } from './format.ts';

type WritePart = NonNullable<Results['writePart']>;

/** Per step, the medians of its runs: wall rate, CPU per record, the cores it and DynamoDB Local used. */
export function stepFigures(w: WritePart, step: WorkerStep) {
  const runs = w.runs.filter((r) => r.step === step);
  // Plan reads the whole file; the other steps part 0.
  const records = step === 'plan' ? w.fileRecords : w.partRecords;
  const m = (f: (r: WritePart['runs'][number]) => number) => median(runs.map(f));
  return {
    runs: runs.length,
    records,
    seconds: m((r) => r.seconds),
    recordsPerSecond: m((r) => records / r.seconds),
    cpuMsPerRecord: m((r) => r.cpuMs / records),
    /** CPU over wall: 1 = the step's core was busy throughout. */
    cpuShare: m((r) => r.cpuMs / 1000 / r.seconds),
    dynamoShare: m((r) => r.dynamoCpuSeconds / r.seconds),
    planCpuBytesPerSecond: m((r) => w.fileBytes / (r.cpuMs / 1000)),
    maxRssMiB: m((r) => r.maxRssMiB),
  };
}

/** What the backfill model scales from: each step's median on one core. */
export function measuredRates(w: WritePart): StepRates {
  return {
    planCpuBytesPerSecond: stepFigures(w, 'plan').planCpuBytesPerSecond,
    checkCpuMsPerRecord: stepFigures(w, 'check').cpuMsPerRecord,
    verifyCpuMsPerRecord: stepFigures(w, 'verify').cpuMsPerRecord,
    writeCpuMsPerRecord: stepFigures(w, 'write').cpuMsPerRecord,
  };
}

const n = (value: number) => Math.round(value).toLocaleString('en-US');
const minutes = (m: number) =>
  m >= 60 ? `${Math.floor(m / 60)} h ${Math.round(m % 60)} min` : `${m.toFixed(1)} min`;

function modelLines(w: WritePart): { lines: string[]; run: BackfillRun; raised: BackfillRun } {
  const b = BACKFILL;
  const model = backfillModel(measuredRates(w));
  const runs: [string, BackfillRun][] = [
    [
      `Warmed to ${n(b.warmWritesPerSecond)} write units/s, concurrency ${model.concurrency}`,
      model.recommended,
    ],
    [
      `Warmed, the per-table quota raised to ${n(model.quotaRaised.quotaWritesPerSecond!)}, concurrency ${model.quotaRaised.concurrency}`,
      model.quotaRaised,
    ],
    [
      `Warmed, the default concurrency (${model.defaultConcurrency.concurrency})`,
      model.defaultConcurrency,
    ],
    [
      `No settings: a new table (${n(b.newTableWritesPerSecond)} write units/s, doubling every ${b.doublingSeconds / 60} min), concurrency ${model.newTable.concurrency}`,
      model.newTable,
    ],
  ];
  const at = (r: BackfillRun) => (r.grows ? ' at first' : '');
  const row = (name: string, f: (r: BackfillRun) => string) => [name, ...runs.map(([, r]) => f(r))];
  const least = (c: number | undefined) =>
    c === undefined ? "none up to the setting's max" : String(c);
  const lines = [
    '',
    '### The backfill on paper, from these figures',
    '',
    `bench/backfill-model.ts, as docs/performance.md ("A backfill in AWS, on paper") states it. ${n(b.records)} records of ~${b.bytesPerRecord} bytes: a ${(model.fileBytes / 1e9).toFixed(1)} GB file in ${model.parts} parts of 8 MiB (~${n(model.recordsPerPart)} records each); ${b.writeUnitsPerRecord} write units a record (${b.tableWriteUnitsPerRecord} of the table, one of each of a transaction's two indexes), no read (${n(model.writeUnits / 1e6)} million write units). The table and each index warmed to ${n(b.warmWritesPerSecond)}; the per-table quota (${n(b.tableQuotaWritesPerSecond)} write units/s, counting the indexes' writes with the table's) leaves ${n(b.tableQuotaWritesPerSecond / b.writeUnitsPerRecord)} records/s, and binds first. One worker writes 1 / its CPU per record when the table keeps up: ${n(model.workerRecordsPerSecond)} records/s. The concurrency that matches the table: ${n(model.recommended.tableRecordsPerSecond)} / ${n(model.workerRecordsPerSecond)} rounded up = **${model.concurrency}**. Each Map runs its parts in waves of that many; each part adds ${b.partStartSeconds} s of starting (Step Functions, Lambda). Plan reads at the lower of its CPU rate on ${b.planMb} MB (${(b.planMb / b.vcpuMb).toFixed(2)} vCPU) and ${b.planReadBytesPerSecond / 1e6} MB/s from S3; Verify merges on one thread.`,
    '',
    table(
      ['Phase', ...runs.map(([name]) => name)],
      [
        row('Plan (one function)', (r) => minutes(r.minutes.plan)),
        row(`CheckParts (${model.parts} parts)`, (r) => minutes(r.minutes.check)),
        row('Verify (one function)', (r) => minutes(r.minutes.verify)),
        row('WriteParts', (r) => minutes(r.minutes.write)),
        row('**In all**', (r) => `**${minutes(r.minutes.total)}**`),
        row('Table takes, records/s', (r) => `${n(r.tableRecordsPerSecond)}${at(r)}`),
        row('Each worker writes, records/s', (r) => `${n(r.workerRecordsPerSecond)}${at(r)}`),
        row('One part written in', (r) => `${r.writePartSeconds.toFixed(0)} s${at(r)}`),
      ],
    ),
    '',
    `The least concurrency within ${b.limitMinutes} minutes, warmed: ${least(model.leastWithin)}.`,
  ];
  return { lines, run: model.recommended, raised: model.quotaRaised };
}

export function renderWritePart(r: Results): ReportPart | undefined {
  const w = r.writePart;
  if (!w?.runs.length) return undefined;
  const steps: [WorkerStep, string][] = [
    ['plan', 'Plan (whole file)'],
    ['check', 'CheckPart'],
    ['verify', 'Verify (this part)'],
    ['write', 'WritePart'],
  ];
  const write = stepFigures(w, 'write');
  const model = modelLines(w);
  const lines = [
    '',
    '## 11. One WritePart on one core',
    '',
    `A generated file of ${n(w.fileRecords)} records (${(w.fileBytes / 2 ** 20).toFixed(1)} MiB) put into a local S3 drop; its first part (${n(w.partRecords)} records, ${(w.partBytes / 2 ** 20).toFixed(2)} MiB: a whole 8 MiB part, cut at a line) taken through the workflow's steps as a stage does (Plan, CheckPart keeping the checked records under \`work/<id>/records/\`, Verify of this part, WritePart), each step in a child process held to CPU ${w.cpus.step} (\`taskset\`: a WritePart function of 1,769 MB has one vCPU) with the local drop's deps (\`localStepDeps\`: 8 write groups in flight), while DynamoDB Local (in memory) and the bench's process (the local S3) were held to CPU ${w.cpus.others}. Only the step's call is timed (the process's start and module loading are a cold start's), Plan's and Verify's second call in their process (in a stage one function of each goes through the whole file: their first request's costs are paid once); CPU is \`process.cpuUsage()\` user + system over the call. Each run writes into a fresh table; one discarded run first. Medians of ${write.runs} runs:`,
    '',
    table(
      [
        'Step',
        'Records',
        'Seconds',
        'Records/s (wall)',
        'CPU ms/record',
        'Step CPU / wall',
        'DynamoDB Local CPU / wall',
        'Peak RSS MiB',
      ],
      steps.map(([step, name]) => {
        const f = stepFigures(w, step);
        return [
          name,
          f.records,
          f.seconds.toFixed(2),
          f.recordsPerSecond.toFixed(0),
          f.cpuMsPerRecord.toFixed(3),
          f.cpuShare.toFixed(2),
          f.dynamoShare.toFixed(2),
          f.maxRssMiB.toFixed(0),
        ];
      }),
    ),
    '',
    `Plan: ${(stepFigures(w, 'plan').planCpuBytesPerSecond / 1e6).toFixed(0)} MB of the file per CPU second. WritePart's wall rate is bound by whichever core is busier: DynamoDB Local's CPU over the write's wall time near 1 means the local table, not the worker, set it; the worker's own rate when the table keeps up is 1 / its CPU per record, ${(1000 / write.cpuMsPerRecord).toFixed(0)} records/s.`,
    '',
    table(
      ['Run', 'Step', 'Seconds', 'CPU ms', 'DynamoDB Local CPU s', 'Peak RSS MiB', 'Load (1 min)'],
      w.runs.map((run) => [
        run.run,
        run.step,
        run.seconds.toFixed(2),
        run.cpuMs.toFixed(0),
        run.dynamoCpuSeconds.toFixed(2),
        run.maxRssMiB.toFixed(0),
        run.load.toFixed(2),
      ]),
    ),
    ...model.lines,
  ];
  return {
    budgets: [
      [
        `The backfill on paper: ${n(BACKFILL.records)} records within ${BACKFILL.limitMinutes} minutes, \`-c tableWarmWritesPerSecond=${model.run.warmWritesPerSecond} -c importConcurrency=${model.run.concurrency}\` (from WritePart's CPU per record on one core)`,
        minutes(model.run.minutes.total),
        yes(model.run.within),
      ],
      [
        `The same with the per-table write quota raised to ${n(model.raised.quotaWritesPerSecond!)} (Service Quotas), \`-c importConcurrency=${model.raised.concurrency}\``,
        minutes(model.raised.minutes.total),
        yes(model.raised.within),
      ],
    ],
    lines,
  };
}
