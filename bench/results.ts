import type { History } from './sections/access-history.ts';
/** The figures of one run (bench/.work/results.json), section by section; the report renders them. */
import type { Paired } from './rounds.ts';
import type { Summary } from './stats.ts';
import type { WorkerStep } from './children/write-part.ts';

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
      paired: { importedAt: Paired; cpuMs: Paired };
    }
  >;
  first?: Record<
    string,
    { respondedAt: Summary; requestMs: Summary; paired: { respondedAt: Paired } }
  >;
  /** The handler against the warm reference (bench/reference-read.ts: raw GetItem + raw access-state UpdateItem, together). */
  warm?: Record<
    string,
    { handler: Summary; reference: Summary; cpuMicros: { handler: number; reference: number } }
  >;
  /**
   * 3b. Each lookup (SPEC 10) against the same client's raw Query of the same index, sent with
   * the same access-state UpdateItem (and the second, counting the rest, for a page of more).
   */
  lookups?: Record<
    string,
    {
      handler: Summary;
      reference: Summary;
      cpuMicros: { handler: number; reference: number };
      /** Summaries on the page: more than one takes the second UpdateItem. */
      summaries: number;
      /** A page of more: the reference without its second UpdateItem, measured beside the two. */
      oneRoundTrip?: { latency: Summary; cpuMicros: number };
    }
  >;
  /** µs per call of a warm GET's steps, by case and step. */
  breakdown?: Record<string, Record<string, number>>;
  cost?: Record<
    string,
    {
      gets: number;
      requests: number;
      operations: Record<string, number>;
      /** GETs whose requests overlapped in time (each sent before the answer to the one before). */
      overlappedGets: number;
      consistentRead: boolean;
      items: number;
      /** Read capacity of the handler's GetItem, write capacity of its access-state UpdateItem. */
      capacityUnits: number;
      writeCapacityUnits: number;
      referenceCapacityUnits: number;
      responseBytes: number;
    }
  >;
  /** A year of one user's sporadic reads: the access state's cost after it (5b). */
  accessHistory?: History;
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
  /** The same file by the direct import and through the local drop at 1, 2 and 4 workers. */
  drop?: {
    mode: 'direct' | 'drop';
    /** The direct import and the drop run side by side share a pair. */
    pair: number;
    workers: number;
    parts: number;
    records: number;
    fileBytes: number;
    seconds: number;
    recordsPerSecond: number;
    cpuSeconds: number;
    cpuMsPerRecord: number;
    /** CPU of the same way importing a file of 10 records; what the rest costs per record. */
    fixedCpuSeconds: number;
    marginalCpuMsPerRecord: number;
    dynamoCpuSeconds: number;
    maxRssMiB: number;
  }[];
  /**
   * 10. The same file by the direct import and the local drop (its defaults) into DynamoDB Local
   * on disk, each into a fresh table, in pairs whose order alternates.
   */
  dropDisk?: {
    mode: 'direct' | 'drop';
    pair: number;
    /** This way ran first in its pair. */
    first: boolean;
    records: number;
    fileBytes: number;
    seconds: number;
    recordsPerSecond: number;
    cpuSeconds: number;
    dynamoCpuSeconds: number;
    maxRssMiB: number;
    /** 1-minute load average as the import started. */
    load: number;
  }[];
  /** 11. One 8 MiB part through the workflow's steps, each in a child process held to one core. */
  writePart?: {
    fileRecords: number;
    fileBytes: number;
    partRecords: number;
    partBytes: number;
    /** taskset's CPU lists: the step's child, and DynamoDB Local and the bench (the local S3). */
    cpus: { step: string; others: string };
    runs: {
      run: number;
      step: WorkerStep;
      /** Wall time of the step's call alone (the child's start and module loading not in it). */
      seconds: number;
      /** process.cpuUsage() user + system over the call. */
      cpuMs: number;
      /** DynamoDB Local's CPU over the step's child. */
      dynamoCpuSeconds: number;
      maxRssMiB: number;
      load: number;
    }[];
  };
  /** GETs while the direct import replaces the same records again and again. */
  reimport?: {
    records: number;
    rounds: number;
    readers: number;
    importSeconds: number;
    recordsPerSecond: number;
    gets: number;
    torn: number;
    failed: number;
    latency: Summary;
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
