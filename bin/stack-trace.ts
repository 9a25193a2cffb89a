/**
 * `npm run --silent stack-trace -- <function> [file]`: maps a stack trace logged by a deployed
 * function (`GetTransaction` or `GetCustomer`) to source files and lines. Reads the trace from the
 * file, or from stdin, and prints it with each `index.mjs:line:column` frame replaced by
 * `source:line:column`.
 *
 * The deployed bundles carry no source map and run without `--enable-source-maps`: both cost
 * init time on every cold start (docs/performance.md). The map is rebuilt here instead, from the
 * same sources with the same options as `cdk synth` (BUNDLING): esbuild writes the same bundle
 * with or without a map, so run this at the commit that was deployed.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLING } from '../lib/api-function.ts';
import { PROJECT_ROOT as ROOT } from '../core/project-root.ts';
import { esbuildOptions } from '../lib/esbuild-options.ts';
import { functionList } from '../core/routes.ts';

/** The bundle and its map for a function, built as `cdk synth` builds the bundle. */
export async function rebuild(routeId: string): Promise<{ code: string; map: SourceMap }> {
  const route = functionList.find((fn) => fn.id === routeId);
  if (!route)
    throw new Error(`no function ${routeId}: one of ${functionList.map((fn) => fn.id).join(', ')}`);
  // Never written: the path only places the map's relative source paths.
  const outfile = join(ROOT, 'cdk.out', 'stack-trace', routeId, 'index.mjs');
  const result = await build({
    ...esbuildOptions(BUNDLING),
    sourcemap: 'external',
    entryPoints: [route.entry],
    outfile,
    write: false,
  });
  const file = (suffix: string) => result.outputFiles.find((f) => f.path === outfile + suffix)!;
  const payload = JSON.parse(file('.map').text) as { sources: string[] };
  // Sources relative to the project root, as a reader looks them up.
  payload.sources = payload.sources.map((s) => relative(ROOT, resolve(outfile, '..', s)));
  return { code: file('').text, map: new SourceMap(payload as never) };
}

/** The trace with every frame in the bundle (`…index.mjs:L:C`) mapped to its source. */
export function mapStackTrace(trace: string, map: SourceMap): string {
  return trace.replace(/(?:file:\/\/)?[^\s()]*index\.mjs:(\d+):(\d+)/g, (frame, line, column) => {
    const origin = map.findOrigin(Number(line), Number(column));
    if (!('fileName' in origin)) return frame;
    return `${origin.fileName}:${origin.lineNumber}:${origin.columnNumber}`;
  });
}

async function main(): Promise<void> {
  const [routeId, file] = process.argv.slice(2);
  if (!routeId || routeId.startsWith('-')) {
    process.stderr.write(
      `usage: npm run --silent stack-trace -- <${functionList.map((fn) => fn.id).join('|')}> [file]\n` +
        '  (reads the trace from the file, or from stdin)\n',
    );
    process.exit(2);
  }
  const { map } = await rebuild(routeId);
  process.stdout.write(mapStackTrace(readFileSync(file ?? 0, 'utf8'), map));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `stack-trace: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
