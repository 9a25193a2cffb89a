/**
 * The esbuild options of a NodejsFunction bundle, from its BundlingOptions, translated the way
 * aws-cdk-lib's Bundling.buildEsbuildArgs turns them into esbuild's command line (`--bundle
 * --target --platform=node --format --minify --sourcemap --sources-content --external
 * --banner:js --main-fields`, then `esbuildArgs`). The benchmark, the bundle tests and
 * `npm run stack-trace` build with it; a test checks that the result is byte for byte the bundle
 * `cdk synth` writes. An option the translation does not know throws, so the two cannot drift
 * apart silently.
 */
import type { BuildOptions } from 'esbuild';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { PROJECT_ROOT } from '../core/project-root.ts';

/** Options that do not change the bundle (where it is built, Docker's platform, what esbuild prints). */
const NO_EFFECT = new Set(['forceDockerBundling', 'platform', 'logLevel']);
const TRANSLATED = new Set([
  'format',
  'target',
  'minify',
  'sourceMap',
  'sourcesContent',
  'mainFields',
  'externalModules',
  'banner',
  'esbuildArgs',
]);

type Pairs = Record<string, string>;

/** `--flag:name=value` arguments of one flag as a name → value record. */
function pairs(flag: string, value: string | boolean | string[]): Pairs {
  const out: Pairs = {};
  for (const item of Array.isArray(value) ? value : [value]) {
    const [name, setting] = String(item).split('=');
    if (!name || !setting) throw new Error(`${flag} needs name=value, got ${String(item)}`);
    out[name] = setting;
  }
  return out;
}

/** The esbuildArgs used, `--alias` and `--log-override`, as esbuild's `alias` and `logOverride`. */
function translateArgs(args: BundlingOptions['esbuildArgs']): { alias: Pairs; logOverride: Pairs } {
  const out = { alias: {}, logOverride: {} };
  for (const [key, value] of Object.entries(args ?? {})) {
    if (key === '--alias') out.alias = pairs(key, value);
    else if (key === '--log-override') out.logOverride = pairs(key, value);
    else throw new Error(`lib/esbuild-options.ts does not translate ${key} yet`);
  }
  return out;
}

export function esbuildOptions(bundling: BundlingOptions): BuildOptions {
  const unknown = Object.keys(bundling).filter((k) => !NO_EFFECT.has(k) && !TRANSLATED.has(k));
  if (unknown.length)
    throw new Error(`lib/esbuild-options.ts does not translate ${unknown.join(', ')} yet`);
  if (!bundling.target) throw new Error('BundlingOptions.target must be set');
  const { alias, logOverride } = translateArgs(bundling.esbuildArgs);
  return {
    bundle: true,
    target: bundling.target,
    platform: 'node',
    format: bundling.format === 'esm' ? 'esm' : 'cjs',
    minify: bundling.minify ?? false,
    sourcemap: bundling.sourceMap ?? false,
    sourcesContent: bundling.sourcesContent ?? true,
    // NodejsFunction leaves the SDK out unless told otherwise (the Lambda runtime provides it).
    external: bundling.externalModules ?? ['@aws-sdk/*', '@smithy/*'],
    ...(bundling.banner ? { banner: { js: bundling.banner } } : {}),
    ...(bundling.mainFields ? { mainFields: bundling.mainFields } : {}),
    ...(Object.keys(alias).length ? { alias } : {}),
    ...(Object.keys(logOverride).length
      ? { logOverride: logOverride as BuildOptions['logOverride'] }
      : {}),
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'warning',
  };
}
