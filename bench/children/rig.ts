/**
 * The local rig (local/rig/rig.ts) in its own process for the throughput runs, so that the load
 * generator does not share an event loop with the gateway. The routes are served by the
 * production bundles, plus `GET /reference/{pk}` served by the warm reference bundle
 * (bench/reference-read.ts: the raw Query and the raw access-state UpdateItem, sent together)
 * behind the same authorizer. The functions run with the benchmark's read budgets
 * (RIG_READ_BUDGETS: the largest allowed, in 30 s windows), so that no measured request meets
 * a 429. Talks to the benchmark over IPC: sends `{ apiUrl, tokens }` when ready, stops on `stop`.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LambdaHandler } from '../../local/gateway/gateway.ts';
import { startLocalRig } from '../../local/rig/rig.ts';
import { routes, type Route } from '../../core/routes.ts';
import { REFERENCE_READ } from '../bundle-names.ts';
import { RIG_READ_BUDGETS } from '../config.ts';

const [dataDir, seedFile, bundlesDir] = process.argv.slice(2) as [string, string, string];

export const REFERENCE_ROUTE: Route = {
  id: REFERENCE_READ,
  method: 'GET',
  path: '/reference/{pk}',
  function: { id: REFERENCE_READ, entry: 'bench/reference-read.ts', entity: 'transaction' },
};

const rig = await startLocalRig({
  dataDir,
  inMemory: true,
  seedFile,
  env: { ...process.env, ...RIG_READ_BUDGETS },
  log: () => {},
  routes: [...routes, REFERENCE_ROUTE],
  loadHandler: async (fn) => {
    const url = pathToFileURL(join(bundlesDir, fn.id, 'index.mjs')).href;
    return ((await import(url)) as { handler: LambdaHandler }).handler;
  },
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await rig.stop();
  process.exit(0);
};
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.on('disconnect', () => void stop());
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

process.send!({
  apiUrl: rig.apiUrl,
  tokens: {
    teller: await rig.tokenFor('teller@example.com'),
    compliance: await rig.tokenFor('compliance@example.com'),
  },
});
