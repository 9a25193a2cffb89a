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
import type { LookupQuery } from '../reference-read.ts';
import { summarize, type Summary } from '../stats.ts';

export interface Case {
  name: string;
  /** The event for a production handler. */
  event: unknown;
  /** The item collection's partition key, for the reference. */
  pk: string;
  /** The warm reference's caller: the access-state item its UpdateItem counts on. */
  referenceSub: string;
}

/** A lookup (SPEC 10): its event, and the Query and access requests the reference sends for it. */
export interface LookupCase {
  name: string;
  event: unknown;
  query: LookupQuery;
  /** The summaries a page holds: both sides are checked to return this many. */
  summaries: number;
  referenceSub: string;
}

export type Spec =
  /** Import the bundle only. */
  | { mode: 'cold'; bundle: string }
  /** Import the bundle and answer one request (`reference`: the bundle is the reference). */
  | { mode: 'first'; bundle: string; reference: boolean; case: Case }
  /**
   * Warm: each case's handler against the warm reference (`referenceBundle`'s `read`: the raw
   * GetItem and the raw access-state UpdateItem, sent together), alternately; each lookup's
   * against its `lookup` (the raw Query, the access-state UpdateItem, the second when needed).
   */
  | {
      mode: 'warm';
      bundle: string;
      referenceBundle: string;
      cases: Case[];
      lookups: LookupCase[];
      iterations: number;
      warmup: number;
    }
  /** Each case's handler `times` times (a proxy in front of DynamoDB counts the requests). */
  | { mode: 'repeat'; bundle: string; cases: Case[]; times: number };

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;
/** bench/reference-read.ts `read`: the GetItem's item. */
type Read = (pk: string, sub: string) => Promise<Record<string, unknown> | undefined>;
/** bench/reference-read.ts `lookup`: the Query's items (`countRest` false: one round trip only). */
type Lookup = (
  query: LookupQuery,
  sub: string,
  countRest?: boolean,
) => Promise<Record<string, unknown>[]>;

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

/** A page's summaries, as the lookup answered them (SPEC 10: `{ data: [...] }`). */
const summariesOf = (body: string) => (JSON.parse(body) as { data: unknown[] }).data.length;

/** One side of a warm case: a call, and a look at what it answered (neither timed nor counted). */
interface Side {
  call: () => Promise<unknown>;
  check: (answer: unknown, round: number) => void;
}

/**
 * One case: its sides in turn, round after round, `warmup` rounds unmeasured. Which goes first
 * rotates, so that none always runs on a just-used connection. Per side: latency, CPU per call.
 */
async function warmCase<K extends string>(sides: Record<K, Side>, spec: SpecOf<'warm'>) {
  const names = Object.keys(sides) as K[];
  const ms = new Map(names.map((name) => [name, [] as number[]]));
  // CPU time of this process per call (user + system, µs): what the call itself costs,
  // whatever else the machine is doing meanwhile.
  const cpu = new Map(names.map((name) => [name, 0]));
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < spec.warmup + spec.iterations; i += 1) {
    if (i === spec.warmup) gc?.();
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(i + k) % names.length]!;
      const usage = process.cpuUsage();
      const t = performance.now();
      const answer = await sides[name].call();
      const took = performance.now() - t;
      const used = process.cpuUsage(usage);
      if (i >= spec.warmup) {
        ms.get(name)!.push(took);
        cpu.set(name, cpu.get(name)! + used.user + used.system);
      }
      sides[name].check(answer, i);
    }
  }
  const out = {} as Record<K, { latency: Summary; cpuMicros: number }>;
  for (const name of names)
    out[name] = { latency: summarize(ms.get(name)!), cpuMicros: cpu.get(name)! / spec.iterations };
  return out;
}

/** The production handler's side: a 200, and what `check` asks of its body. */
const handlerSide = (
  handler: Handler,
  event: unknown,
  name: string,
  check: (body: string, round: number) => void = () => undefined,
): Side => ({
  call: () => handler(event, context()),
  check: (answer, round) => {
    const result = answer as { statusCode: number; body: string };
    expectOk(result, name);
    check(result.body, round);
  },
});

async function warm(spec: SpecOf<'warm'>) {
  const { handler } = await load<{ handler: Handler }>(spec.bundle);
  const { read, lookup } = await load<{ read: Read; lookup: Lookup }>(spec.referenceBundle);
  const gets: Record<string, unknown> = {};
  for (const c of spec.cases) {
    const w = await warmCase(
      {
        handler: handlerSide(handler, c.event, c.name),
        reference: {
          call: () => read(c.pk, c.referenceSub),
          check: (item) => {
            if (!item) throw new Error(`no item under ${c.pk}`);
          },
        },
      },
      spec,
    );
    gets[c.name] = {
      handler: w.handler.latency,
      reference: w.reference.latency,
      cpuMicros: { handler: w.handler.cpuMicros, reference: w.reference.cpuMicros },
    };
  }
  const lookups: Record<string, unknown> = {};
  const last = spec.warmup + spec.iterations - 1;
  for (const c of spec.lookups) {
    const items = (expected: number, what: string) => (answer: unknown) => {
      const n = (answer as unknown[]).length;
      if (n !== expected) throw new Error(`${c.name}: ${what} read ${n} items, not ${expected}`);
    };
    // A page cut short (a budget met) would be a cheaper call: its length checked first and last.
    const page = (body: string, round: number) => {
      if ((round === 0 || round === last) && summariesOf(body) !== c.summaries)
        throw new Error(`${c.name}: ${summariesOf(body)} summaries, not ${c.summaries}`);
    };
    const sides = {
      handler: handlerSide(handler, c.event, c.name, page),
      reference: {
        call: () => lookup(c.query, c.referenceSub),
        check: items(c.summaries, 'the reference'),
      },
    };
    // What the second UpdateItem costs: the same reference without it, beside the other two.
    const w =
      c.summaries > 1
        ? await warmCase(
            {
              ...sides,
              oneRoundTrip: {
                call: () => lookup(c.query, c.referenceSub, false),
                check: items(c.summaries, 'the reference without the second UpdateItem'),
              },
            },
            spec,
          )
        : await warmCase(sides, spec);
    lookups[c.name] = {
      handler: w.handler.latency,
      reference: w.reference.latency,
      cpuMicros: { handler: w.handler.cpuMicros, reference: w.reference.cpuMicros },
      summaries: c.summaries,
      ...('oneRoundTrip' in w ? { oneRoundTrip: w.oneRoundTrip } : {}),
    };
  }
  return { gets, lookups };
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
