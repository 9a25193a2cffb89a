/**
 * 4. The local gateway under autocannon: each route and the reference route (the stock client's
 * raw GetItem and raw access-state UpdateItem, sent together: bench/reference-read.ts) at each
 * concurrency, interleaved, after a warm-up of every target. Non-2xx answers count as errors.
 */
import autocannon from 'autocannon';
import { CUSTOMER, SMALL_TXN } from '../cases.ts';
import { THROUGHPUT_REFERENCE } from '../report/throughput.ts';
import { log, type BenchConfig } from '../config.ts';
import type { Results } from '../results.ts';
import type { RigChild } from '../rig-child.ts';
import { median } from '../stats.ts';

type Rates = NonNullable<Results['throughput']>;
interface Target {
  name: string;
  path: string;
  token: string;
}

function targetsOf(rig: RigChild): Target[] {
  const { teller, compliance } = rig.tokens;
  return [
    { name: 'GET /transactions/{id}', path: `/transactions/${SMALL_TXN}`, token: teller! },
    { name: 'GET /customers/{id}', path: `/customers/${CUSTOMER}`, token: compliance! },
    {
      name: THROUGHPUT_REFERENCE,
      path: `/reference/${encodeURIComponent(`TXN#${SMALL_TXN}`)}`,
      token: teller!,
    },
  ];
}

const optionsOf = (rig: RigChild, target: Target) => ({
  url: `${rig.apiUrl}${target.path}`,
  headers: { authorization: `Bearer ${target.token}` },
  timeout: 10,
});

/** DynamoDB Local's JVM compiles its hot paths in the first seconds: warm it on every target. */
export async function warmUpGateway(config: BenchConfig, rig: RigChild): Promise<void> {
  log(`throughput: warming up, ${config.warmupSeconds} s per target`);
  for (const target of targetsOf(rig))
    await autocannon({
      ...optionsOf(rig, target),
      connections: 8,
      duration: config.warmupSeconds,
    });
}

/** One concurrency level: runs merged per target (median p50, highest p99). */
async function level(config: BenchConfig, rig: RigChild, index: number, connections: number) {
  const targets = targetsOf(rig);
  const runs = new Map(
    targets.map((t) => [t.name, [] as Awaited<ReturnType<typeof autocannon>>[]]),
  );
  // Each target several times, interleaved, every other round in reverse order (A B C C B A):
  // a drift (DynamoDB Local's JIT still warming, other work on the machine) falls on all alike.
  const order = targets.map((_, k) => targets[(k + index) % targets.length]!);
  for (let round = 0; round < config.throughputRounds; round += 1) {
    for (const target of round % 2 ? [...order].reverse() : order) {
      log(`throughput: ${target.name}, ${connections} connections, ${config.durationSeconds} s`);
      const options = {
        ...optionsOf(rig, target),
        connections,
        duration: config.durationSeconds,
      };
      runs.get(target.name)!.push(await autocannon(options));
    }
  }
  return targets.map((target) => {
    const rs = runs.get(target.name)!;
    const requests = rs.reduce((a, r) => a + r.requests.total, 0);
    return {
      target: target.name,
      connections,
      requestsPerSecond: requests / rs.reduce((a, r) => a + r.duration, 0),
      requests,
      p50: median(rs.map((r) => r.latency.p50)),
      p99: Math.max(...rs.map((r) => r.latency.p99)),
      errors: rs.reduce((a, r) => a + r.errors + r.timeouts + r.non2xx, 0),
    };
  });
}

export async function measureThroughput(config: BenchConfig, rig: RigChild): Promise<Rates> {
  const out: Rates = [];
  for (const [index, connections] of config.concurrency.entries())
    out.push(...(await level(config, rig, index, connections)));
  const rank = (name: string) => targetsOf(rig).findIndex((t) => t.name === name);
  return out.sort((a, b) =>
    a.target === b.target ? a.connections - b.connections : rank(a.target) - rank(b.target),
  );
}
