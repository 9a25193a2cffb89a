/**
 * The five-year backfill through a stage's import drop, on paper (docs/performance.md, "A
 * backfill in AWS, on paper"): its phases' minutes from what section 11 measured of each step on
 * one core, and the assumptions below, each named. Not measured in AWS (no account here): the
 * report renders it from a run's figures so that the doc and bench/RESULTS.md say the same.
 */
import { DEFAULT_PART_BYTES } from '../import/parts.ts';
import { IMPORT_STEPS } from '../import/steps/step.ts';
import { WRITE_STOP_MARGIN_MS } from '../import/steps/write-part.ts';
import { IMPORT_CONCURRENCY, TABLE_WARM_WRITES } from '../stage/settings.ts';

export const BACKFILL = {
  /** Five years of a 50-branch chain. */
  records: 18_000_000,
  /** JSON bytes a record (the demo transaction is 700 with every field set; most exports are shorter). */
  bytesPerRecord: 300,
  /**
   * A record is one item (core/layout.ts), one UpdateItem: a transaction with two currency lines,
   * with what its item keeps of the two before it, is under 1 KB, 1 write unit of the table, and
   * one of each index its keys put it in (core/lookups.ts: `receipt` and `customer-transactions`,
   * an entry well under 1 KB): 3. A customer writes up to 5 (4 indexes); a backfill is nearly all
   * transactions. The write reads nothing: no read units, no read setting.
   */
  writeUnitsPerRecord: 3,
  /** Of which the table's own: the rest go to its indexes, each a write unit of its own. */
  tableWriteUnitsPerRecord: 1,
  /**
   * `-c tableWarmWritesPerSecond=40000`: the table and each index warmed to the most without a
   * quota raise.
   */
  warmWritesPerSecond: TABLE_WARM_WRITES.max,
  /**
   * The per-table write quota of an on-demand table (adjustable): AWS's quotas page counts "the
   * sum of a table's throughput together with the throughput of all of its global secondary
   * indexes" against it, so it holds a record's every write unit, its indexes' too.
   */
  tableQuotaWritesPerSecond: 40_000,
  /** A new on-demand table's writes without the setting. */
  newTableWritesPerSecond: TABLE_WARM_WRITES.min,
  /** An on-demand table serves up to twice its previous peak; past that it adapts in ~30 min. */
  doublingSeconds: 1800,
  /** Lambda's CPU grows with memory: 1,769 MB is one vCPU (lib/import-drop.ts STEPS). */
  vcpuMb: 1769,
  /** Plan's memory (lib/import-drop.ts STEPS): its share of a vCPU. */
  planMb: 1024,
  /** One S3 GET stream into Plan, which reads the file in one pass. */
  planReadBytesPerSecond: 100e6,
  /** Per part: Step Functions starting the Map's item and Lambda its invocation (a cold start). */
  partStartSeconds: 1,
  limitMinutes: 15,
} as const;

/** Section 11's medians, each on one core. */
export interface StepRates {
  planCpuBytesPerSecond: number;
  checkCpuMsPerRecord: number;
  verifyCpuMsPerRecord: number;
  writeCpuMsPerRecord: number;
}

/** One way to run the backfill: the table's warm throughput and the import's concurrency. */
export interface Scenario {
  concurrency: number;
  warmWritesPerSecond: number;
  /** The table's throughput doubling every `doublingSeconds` (up to the quota) as it is used. */
  grows?: true;
  /** The per-table write quota, when raised (Service Quotas); else BACKFILL's default. */
  quotaWritesPerSecond?: number;
}

export interface BackfillRun extends Scenario {
  /** Records a second the table takes (at first, when it grows): its units over a record's. */
  tableRecordsPerSecond: number;
  /** Records a second each worker writes (at first): its CPU's rate, or its share of the table's. */
  workerRecordsPerSecond: number;
  /** One part's writing (at first), its start included. */
  writePartSeconds: number;
  /** A part ends within WritePart's limit less the margin it stops at. */
  partWithinLimit: boolean;
  minutes: { plan: number; check: number; verify: number; write: number; total: number };
  within: boolean;
}

export interface BackfillModel {
  fileBytes: number;
  parts: number;
  recordsPerPart: number;
  writeUnits: number;
  /** One worker's records/s when the table keeps up: 1 / its CPU per record. */
  workerRecordsPerSecond: number;
  /** Write units a second over 3 × one worker's records/s, rounded up. */
  concurrency: number;
  /** Warmed to 40,000 writes, at that concurrency. */
  recommended: BackfillRun;
  /** The per-table quota raised to a record's write units × 40,000, warmed, at its concurrency. */
  quotaRaised: BackfillRun;
  /** Warmed, at the default concurrency (10). */
  defaultConcurrency: BackfillRun;
  /** No settings: a new table (4,000 writes, doubling as used), concurrency 10. */
  newTable: BackfillRun;
  /** The least concurrency within the limit, warmed; undefined: none. */
  leastWithin: number | undefined;
}

/**
 * Records a second the table takes `t` seconds into the writes: the lower of what the table and
 * each index take (each warmed alike, a write unit of each a record) and what the per-table quota
 * leaves for a record's every write unit.
 */
function tableRecordsAt(scenario: Scenario, t: number): number {
  const b = BACKFILL;
  const quota = scenario.quotaWritesPerSecond ?? b.tableQuotaWritesPerSecond;
  const factor = scenario.grows ? 2 ** Math.floor(t / b.doublingSeconds) : 1;
  const each = Math.min(scenario.warmWritesPerSecond * factor, TABLE_WARM_WRITES.max);
  return Math.min(each / b.tableWriteUnitsPerRecord, quota / b.writeUnitsPerRecord);
}

export function runBackfill(rates: StepRates, scenario: Scenario): BackfillRun {
  const b = BACKFILL;
  const { concurrency } = scenario;
  const fileBytes = b.records * b.bytesPerRecord;
  const parts = Math.ceil(fileBytes / DEFAULT_PART_BYTES);
  const recordsPerPart = b.records / parts;
  // Each Map runs `concurrency` parts at once: the parts start in ceil(parts / concurrency) waves.
  const waves = Math.ceil(parts / concurrency);
  const cpuRecordsPerSecond = 1000 / rates.writeCpuMsPerRecord;
  // The workers together write at their CPU's rate or the table's, second by second: a growing
  // table's rate changes as it goes.
  let writing = 0;
  for (let written = 0; written < b.records; writing += 1)
    written += Math.min(concurrency * cpuRecordsPerSecond, tableRecordsAt(scenario, writing));
  const tableRecordsPerSecond = tableRecordsAt(scenario, 0);
  const workerRecordsPerSecond = Math.min(cpuRecordsPerSecond, tableRecordsPerSecond / concurrency);
  const writePartSeconds = recordsPerPart / workerRecordsPerSecond + b.partStartSeconds;
  const checkPartSeconds = (recordsPerPart * rates.checkCpuMsPerRecord) / 1000 + b.partStartSeconds;
  const planBytesPerSecond = Math.min(
    (rates.planCpuBytesPerSecond * b.planMb) / b.vcpuMb,
    b.planReadBytesPerSecond,
  );
  const seconds = {
    plan: fileBytes / planBytesPerSecond,
    check: waves * checkPartSeconds,
    // One function; its 3,008 MB give more than a vCPU, but the merge is one thread.
    verify: (b.records * rates.verifyCpuMsPerRecord) / 1000,
    write: writing + waves * b.partStartSeconds,
  };
  const minutes = {
    plan: seconds.plan / 60,
    check: seconds.check / 60,
    verify: seconds.verify / 60,
    write: seconds.write / 60,
    total: (seconds.plan + seconds.check + seconds.verify + seconds.write) / 60,
  };
  return {
    ...scenario,
    tableRecordsPerSecond,
    workerRecordsPerSecond,
    writePartSeconds,
    partWithinLimit:
      writePartSeconds <= IMPORT_STEPS.WritePart.timeoutSeconds - WRITE_STOP_MARGIN_MS / 1000,
    minutes,
    within: minutes.total <= b.limitMinutes,
  };
}

/** The least concurrency (up to the setting's max) at which the backfill ends within the limit. */
function leastWithin(rates: StepRates, scenario: Omit<Scenario, 'concurrency'>) {
  for (let concurrency = 1; concurrency <= IMPORT_CONCURRENCY.max; concurrency += 1)
    if (runBackfill(rates, { ...scenario, concurrency }).within) return concurrency;
  return undefined;
}

export function backfillModel(rates: StepRates): BackfillModel {
  const b = BACKFILL;
  const fileBytes = b.records * b.bytesPerRecord;
  const parts = Math.ceil(fileBytes / DEFAULT_PART_BYTES);
  const workerRecordsPerSecond = 1000 / rates.writeCpuMsPerRecord;
  const warm = { warmWritesPerSecond: b.warmWritesPerSecond };
  const matching = (scenario: Omit<Scenario, 'concurrency'>) =>
    Math.ceil(tableRecordsAt({ ...scenario, concurrency: 1 }, 0) / workerRecordsPerSecond);
  const concurrency = matching(warm);
  const raised = { ...warm, quotaWritesPerSecond: b.writeUnitsPerRecord * b.warmWritesPerSecond };
  return {
    fileBytes,
    parts,
    recordsPerPart: b.records / parts,
    writeUnits: b.records * b.writeUnitsPerRecord,
    workerRecordsPerSecond,
    concurrency,
    recommended: runBackfill(rates, { ...warm, concurrency }),
    quotaRaised: runBackfill(rates, { ...raised, concurrency: matching(raised) }),
    defaultConcurrency: runBackfill(rates, { ...warm, concurrency: IMPORT_CONCURRENCY.default }),
    newTable: runBackfill(rates, {
      warmWritesPerSecond: b.newTableWritesPerSecond,
      grows: true,
      concurrency: IMPORT_CONCURRENCY.default,
    }),
    leastWithin: leastWithin(rates, warm),
  };
}
