/**
 * 2. Process start to first response, in fresh processes against DynamoDB Local over TLS, as a
 * function in AWS reaches DynamoDB (bench/tls-proxy.ts).
 */
import { REFERENCE } from '../bundle-names.ts';
import { CASE_OF_ROUTE } from '../cases.ts';
import { log, WORK } from '../config.ts';
import { invoke } from '../processes.ts';
import type { Results } from '../results.ts';
import { pairedRatio, rounds } from '../rounds.ts';
import { summarize } from '../stats.ts';
import { startTlsProxy } from '../tls-proxy.ts';
import { envOf, type BenchRun } from './bench-run.ts';

type First = { importMs: number; requestMs: number; respondedAt: number };

export async function measureFirst(
  run: BenchRun,
  dynamoDbEndpoint: string,
): Promise<NonNullable<Results['first']>> {
  const { names, config } = run;
  log(`first request: ${config.firstRuns} rounds, fresh processes against DynamoDB Local`);
  const tls = await startTlsProxy(dynamoDbEndpoint, WORK);
  run.processes.onCleanup(() => tls.stop());
  const tlsEnv = { DYNAMODB_ENDPOINT: tls.endpoint, NODE_EXTRA_CA_CERTS: tls.caFile };
  const first = (name: string) =>
    invoke<First>(
      run.invoker,
      {
        mode: 'first',
        bundle: run.bundle(name).file,
        reference: name === REFERENCE,
        case: CASE_OF_ROUTE[name] ?? CASE_OF_ROUTE.Transactions!,
      },
      envOf(run, name, tlsEnv),
    );
  await rounds(2, names, first); // DynamoDB Local's JVM warms up on these
  const runs = await rounds(config.firstRuns, names, first);
  return Object.fromEntries(
    names.map((n) => [
      n,
      {
        respondedAt: summarize(runs[n]!.map((r) => r.respondedAt)),
        requestMs: summarize(runs[n]!.map((r) => r.requestMs)),
        paired: { respondedAt: pairedRatio(runs, n, (r: First) => r.respondedAt) },
      },
    ]),
  );
}
