/**
 * A deployed function's stack trace mapped to source lines. The deployed bundles carry no source
 * map and run without `--enable-source-maps`: both cost init time on every cold start
 * (docs/performance.md). The map is rebuilt here instead, from the same sources with the options
 * `cdk synth` bundles with: esbuild writes the same bundle with or without a map, so this maps
 * the trace of the commit it runs at.
 */
import { SourceMap } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { PROJECT_ROOT as ROOT } from '../../core/project-root.ts';
import { functionList } from '../../core/routes.ts';

/**
 * The bundle and its map for a function, built with `bundling`: the esbuild options of the
 * deployed bundle (lib/esbuild-options.ts of lib/project-function.ts's BUNDLING), which this room may
 * not import, so its caller passes them.
 */
export async function rebuild(
  routeId: string,
  bundling: BuildOptions,
): Promise<{ code: string; map: SourceMap }> {
  const route = functionList.find((fn) => fn.id === routeId);
  if (!route)
    throw new Error(`no function ${routeId}: one of ${functionList.map((fn) => fn.id).join(', ')}`);
  // Never written: the path only places the map's relative source paths.
  const outfile = join(ROOT, 'cdk.out', 'stack-trace', routeId, 'index.mjs');
  const result = await build({
    ...bundling,
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
