/**
 * The production bundles, built exactly as `cdk synth` builds them, and the reference bundle,
 * built with the same options.
 *
 * The esbuild options come from BUNDLING in lib/api-function.ts, the object every ApiFunction
 * hands to NodejsFunction, translated the way aws-cdk-lib's Bundling.buildEsbuildArgs turns it
 * into esbuild's command line (`--bundle --target --platform=node --format --minify
 * --sourcemap --sources-content --external --banner:js --main-fields`). An option the
 * translation does not know stops the benchmark, so the two cannot drift apart silently.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BUNDLING } from '../lib/api-function';
import { routes } from '../lib/routes';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Options that do not change the bundle (where it is built, or Docker's platform). */
const NO_EFFECT = new Set(['forceDockerBundling', 'platform']);
const TRANSLATED = new Set([
  'format',
  'target',
  'minify',
  'sourceMap',
  'sourcesContent',
  'mainFields',
  'externalModules',
  'banner',
]);

/** esbuild's options for a NodejsFunction bundle with these BundlingOptions (see the header). */
export function esbuildOptions(bundling: BundlingOptions): BuildOptions {
  const unknown = Object.keys(bundling).filter((k) => !NO_EFFECT.has(k) && !TRANSLATED.has(k));
  if (unknown.length)
    throw new Error(`bench/bundles.ts does not translate BUNDLING.${unknown.join(', ')} yet`);
  if (!bundling.target) throw new Error('BUNDLING.target must be set');
  return {
    bundle: true,
    target: bundling.target,
    platform: 'node',
    format: bundling.format === 'esm' ? 'esm' : 'cjs',
    minify: bundling.minify ?? false,
    sourcemap: bundling.sourceMap ?? false,
    sourcesContent: bundling.sourcesContent ?? true,
    // NodejsFunction leaves the SDK out unless told otherwise; ours says [] (all bundled).
    external: bundling.externalModules ?? ['@aws-sdk/*', '@smithy/*'],
    ...(bundling.banner ? { banner: { js: bundling.banner } } : {}),
    ...(bundling.mainFields ? { mainFields: bundling.mainFields } : {}),
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'warning',
  };
}

export interface Bundle {
  /** `GetTransaction`, `GetCustomer` or `Reference`. */
  name: string;
  entry: string;
  /** index.mjs */
  file: string;
  bytes: number;
  mapBytes: number;
}

/** The reference: only DynamoDBDocumentClient and one QueryCommand (bench/reference.ts). */
export const REFERENCE = 'Reference';

export async function buildBundles(outDir: string): Promise<Bundle[]> {
  rmSync(outDir, { recursive: true, force: true });
  const options = esbuildOptions(BUNDLING);
  const entries = [
    ...routes.map((r) => ({ name: r.id, entry: r.entry })),
    { name: REFERENCE, entry: 'bench/reference.ts' },
  ];
  return Promise.all(
    entries.map(async ({ name, entry }) => {
      const dir = join(outDir, name);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, options.format === 'esm' ? 'index.mjs' : 'index.js');
      await build({ ...options, entryPoints: [entry], outfile: file });
      return { name, entry, file, bytes: statSync(file).size, mapBytes: mapSize(file) };
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
