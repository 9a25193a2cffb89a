/**
 * The bundles the benchmark measures, all from the same sources and the same esbuild:
 * - the production bundles, built exactly as `cdk synth` builds them (BUNDLING in
 *   lib/project-function.ts, translated by lib/esbuild-options.ts; a test checks the two agree);
 * - `Reference`, the stock floor: bench/reference.ts (one DynamoDB Document Client, one Query)
 *   bundled as a plain project ships the stock SDK: BUNDLING without the credential alias, so
 *   with the SDK's whole default credential chain, and no source map;
 * - `ReferenceRead`, the warm reference: bench/reference-read.ts (the same client's GetItem, plus
 *   the raw access-state UpdateItem, sent together), bundled as `Reference`; a bundle of its own,
 *   so that the floor stays one Document Client and one Query (it is not in the cold sections);
 * - `Transactions+maps`: the production bundle with a linked source map, run with
 *   `--enable-source-maps` (what the functions deployed before), to price runtime source maps;
 * - `CdkDefault`: the Transactions function as a default `NodejsFunction` builds it (CommonJS,
 *   not minified, `@aws-sdk/*` and `@smithy/*` left out). Lambda resolves those from the SDK in
 *   its runtime (`/var/runtime/node_modules`, the CommonJS builds); here Node.js resolves them the
 *   same way from the project's node_modules, which the bundle directory sits under.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BUNDLING } from '../lib/project-function.ts';
import { esbuildOptions } from '../lib/esbuild-options.ts';
import { apiFunctions, functionList } from '../core/routes.ts';
import { CDK_DEFAULT, REFERENCE, REFERENCE_READ, WITH_SOURCE_MAPS } from './bundle-names.ts';

export interface Bundle {
  /** `Transactions`, `Customers`, `Reference`, `ReferenceRead`, `Transactions+maps` or `CdkDefault`. */
  name: string;
  entry: string;
  /** index.mjs, or index.js for CommonJS */
  file: string;
  bytes: number;
  mapBytes: number;
  /** NODE_OPTIONS it runs with: the deployed ones, or what the variant stands for. */
  nodeOptions: string;
}

/** The stock floor's options: the production ones without what this project leaves out. */
const { esbuildArgs: _alias, ...STOCK } = BUNDLING;

/** A default NodejsFunction on nodejs24.x: CommonJS, not minified, the SDK left external. */
const CDK_DEFAULTS: BundlingOptions = { target: 'node24' };

/** The NODE_OPTIONS the functions are deployed with (none: lib/project-function.ts sets none). */
export const DEPLOYED_NODE_OPTIONS = '';

export async function buildBundles(outDir: string): Promise<Bundle[]> {
  rmSync(outDir, { recursive: true, force: true });
  const transaction = apiFunctions.transaction.entry;
  const entries: { name: string; entry: string; bundling: BundlingOptions; nodeOptions: string }[] =
    [
      ...functionList.map((fn) => ({
        name: fn.id,
        entry: fn.entry,
        bundling: BUNDLING,
        nodeOptions: DEPLOYED_NODE_OPTIONS,
      })),
      {
        name: REFERENCE,
        entry: 'bench/reference.ts',
        bundling: STOCK,
        nodeOptions: DEPLOYED_NODE_OPTIONS,
      },
      {
        name: REFERENCE_READ,
        entry: 'bench/reference-read.ts',
        bundling: STOCK,
        nodeOptions: DEPLOYED_NODE_OPTIONS,
      },
      {
        name: WITH_SOURCE_MAPS,
        entry: transaction,
        bundling: { ...BUNDLING, sourceMap: true, sourcesContent: false },
        nodeOptions: '--enable-source-maps',
      },
      { name: CDK_DEFAULT, entry: transaction, bundling: CDK_DEFAULTS, nodeOptions: '' },
    ];
  return Promise.all(
    entries.map(async ({ name, entry, bundling, nodeOptions }) => {
      const dir = join(outDir, name);
      mkdirSync(dir, { recursive: true });
      const options = esbuildOptions(bundling);
      const esm = options.format === 'esm';
      // The project's package.json says "type": "module"; Lambda reads index.js as CommonJS.
      if (!esm) writeFileSync(join(dir, 'package.json'), '{"type":"commonjs"}\n');
      const file = join(dir, esm ? 'index.mjs' : 'index.js');
      await build({ ...options, entryPoints: [entry], outfile: file });
      return {
        name,
        entry,
        file,
        bytes: statSync(file).size,
        mapBytes: mapSize(file),
        nodeOptions,
      };
    }),
  );
}

function mapSize(file: string): number {
  try {
    return statSync(`${file}.map`).size;
  } catch {
    return 0;
  }
}
