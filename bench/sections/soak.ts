/**
 * 7. The soak: both routes mixed (and a 404 and a 403 each round, which are answers, not errors),
 * through the gateway for soakSeconds at most and soakMaxRequests at most, with the rig
 * process's RSS sampled every second: zero errors, and memory that levels off.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { CUSTOMER, LARGE_TXN, SMALL_TXN } from '../cases.ts';
import { log, type BenchConfig } from '../config.ts';
import type { Results } from '../results.ts';
import type { RigChild } from '../rig-child.ts';
import { median } from '../stats.ts';

/** RSS of a process in KiB, from /proc (Linux). */
function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

export async function measureSoak(
  config: BenchConfig,
  rig: RigChild,
): Promise<NonNullable<Results['soak']>> {
  const { soakSeconds, soakConnections, soakMaxRequests } = config;
  log(`soak: ${soakSeconds} s, ${soakConnections} connections, mixed routes`);
  const auth = (who: string) => ({ authorization: `Bearer ${rig.tokens[who]!}` });
  const requests = [
    { method: 'GET' as const, path: `/transactions/${SMALL_TXN}`, headers: auth('teller') },
    { method: 'GET' as const, path: `/transactions/${LARGE_TXN}`, headers: auth('teller') },
    { method: 'GET' as const, path: `/customers/${CUSTOMER}`, headers: auth('compliance') },
  ];
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssKiB(rig.pid)), 1000);
  const started = performance.now();
  const result = await autocannon({
    url: rig.apiUrl,
    requests,
    connections: soakConnections,
    duration: soakSeconds,
    // A rate cap makes the count bounded too (autocannon's `amount` would override the time bound).
    overallRate: Math.ceil(soakMaxRequests / soakSeconds),
    timeout: 10,
  });
  clearInterval(sampler);
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  return {
    seconds: (performance.now() - started) / 1000,
    connections: soakConnections,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    // The first quarter is warm-up (JIT, heap sizing); stable means the rest levels off.
    rssFirstQuarterMiB: median(samples.slice(quarter, 2 * quarter)) / 1024,
    rssLastQuarterMiB: median(samples.slice(-quarter)) / 1024,
    rssMaxMiB: Math.max(...samples) / 1024,
  };
}
