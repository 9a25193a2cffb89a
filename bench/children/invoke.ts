/**
 * A fresh Node.js process that loads one bundle the way Lambda does (a dynamic import of the
 * ES module) and, depending on the mode, stops there, answers one request, or answers many.
 * Built by esbuild into bench/.work/children/invoke.mjs (node: built-ins only), so that nothing
 * but the bundle under test is loaded. The one result is written to fd 3 as a `BENCH {json}`
 * line (to stdout when there is no fd 3); stdout is the functions' own logging, which the
 * benchmark sends to a file, as a log line is written somewhere in Lambda too, rather than to a
 * pipe that would wake the benchmark up, on the same cores, for every request.
 *
 * Times are performance.now(): milliseconds since this process started.
 */
import { writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { summarize } from '../stats.ts';

export interface Case {
  name: string;
  /** The event for a production handler. */
  event: unknown;
  /** The item collection's partition key, for the reference. */
  pk: string;
  /** The warm reference's caller: the access-state item its UpdateItem counts on. */
  referenceSub: string;
}

export type Spec =
  /** Import the bundle only. */
  | { mode: 'cold'; bundle: string }
  /** Import the bundle and answer one request (`reference`: the bundle is the reference). */
  | { mode: 'first'; bundle: string; reference: boolean; case: Case }
  /**
   * Warm: each case's handler against the warm reference (`referenceBundle`'s `read`: the raw
   * Query and the raw access-state UpdateItem, sent together), alternately.
   */
  | {
      mode: 'warm';
      bundle: string;
      referenceBundle: string;
      cases: Case[];
      iterations: number;
      warmup: number;
    }
  /** Each case's handler `times` times (a proxy in front of DynamoDB counts the requests). */
  | { mode: 'repeat'; bundle: string; cases: Case[]; times: number };

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;
/** bench/reference-read.ts `read`: the Query's items. */
type Read = (pk: string, sub: string) => Promise<Record<string, unknown> | undefined>;

const started = performance.now();
const spec = JSON.parse(process.argv[2]!) as Spec;

let invocation = 0;
const context = () => ({
  awsRequestId: `bench-${(invocation += 1)}`,
  functionName: 'bench',
  getRemainingTimeInMillis: () => 10_000,
});

function expectOk(result: { statusCode: number; body: string }, what: string): void {
  if (result.statusCode !== 200)
    throw new Error(`${what} answered ${result.statusCode}: ${result.body.slice(0, 200)}`);
}

async function load<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(file).href)) as T;
}

type SpecOf<M extends Spec['mode']> = Extract<Spec, { mode: M }>;

/** Import only: when the bundle is loaded, and the process's CPU time so far (bootstrap included). */
async function cold(spec: SpecOf<'cold'>) {
  await load(spec.bundle);
  const imported = performance.now();
  const cpu = process.cpuUsage();
  return {
    importMs: imported - started,
    importedAt: imported,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

async function first(spec: SpecOf<'first'>) {
  const { handler } = await load<{ handler: Handler }>(spec.bundle);
  const imported = performance.now();
  const event = spec.reference ? { pathParameters: { pk: spec.case.pk } } : spec.case.event;
  const result = await handler(event, context());
  const responded = performance.now();
  expectOk(result, spec.case.name);
  return {
    importMs: imported - started,
    requestMs: responded - imported,
    respondedAt: responded,
    bytes: result.body.length,
  };
}

/** One case: the handler and the reference's read alternately, after `warmup` unmeasured rounds. */
async function warmCase(handler: Handler, read: Read, c: Case, spec: SpecOf<'warm'>) {
  const handlerMs: number[] = [];
  const referenceMs: number[] = [];
  // CPU time of this process per call (user + system, µs): what the call itself costs,
  // whatever else the machine is doing meanwhile.
  const cpu = { handler: 0, reference: 0 };
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < spec.warmup + spec.iterations; i += 1) {
    if (i === spec.warmup) gc?.();
    const measured = i >= spec.warmup;
    // Alternate which goes first, so that neither always runs on a just-used connection.
    for (const which of i % 2 ? ['reference', 'handler'] : ['handler', 'reference']) {
      const usage = process.cpuUsage();
      const t = performance.now();
      if (which === 'handler') {
        const result = await handler(c.event, context());
        if (measured) handlerMs.push(performance.now() - t);
        expectOk(result, c.name);
      } else {
        const item = await read(c.pk, c.referenceSub);
        if (measured) referenceMs.push(performance.now() - t);
        if (!item) throw new Error(`no item under ${c.pk}`);
      }
      if (measured) {
        const used = process.cpuUsage(usage);
        cpu[which as 'handler' | 'reference'] += used.user + used.system;
      }
    }
  }
  return {
    handler: summarize(handlerMs),
    reference: summarize(referenceMs),
    cpuMicros: {
      handler: cpu.handler / spec.iterations,
      reference: cpu.reference / spec.iterations,
    },
  };
}

async function warm(spec: SpecOf<'warm'>) {
  const { handler } = await load<{ handler: Handler }>(spec.bundle);
  const { read } = await load<{ read: Read }>(spec.referenceBundle);
  const out: Record<string, unknown> = {};
  for (const c of spec.cases) out[c.name] = await warmCase(handler, read, c, spec);
  return out;
}

async function repeat(spec: SpecOf<'repeat'>) {
  const { handler } = await load<{ handler: Handler }>(spec.bundle);
  const out: Record<string, unknown> = {};
  for (const c of spec.cases) {
    let bytes = 0;
    for (let i = 0; i < spec.times; i += 1) {
      const result = await handler(c.event, context());
      expectOk(result, c.name);
      bytes = result.body.length;
    }
    out[c.name] = { times: spec.times, bytes };
  }
  return out;
}

async function main(): Promise<unknown> {
  switch (spec.mode) {
    case 'cold':
      return cold(spec);
    case 'first':
      return first(spec);
    case 'warm':
      return warm(spec);
    case 'repeat':
      return repeat(spec);
  }
}

main().then(
  (result) => {
    const line = `BENCH ${JSON.stringify(result)}\n`;
    try {
      writeSync(3, line);
    } catch {
      writeSync(1, line);
    }
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
