/**
 * `npm run --silent stack-trace -- <function> [file]`: maps a stack trace logged by a deployed
 * function (`GetTransaction` or `GetCustomer`) to source files and lines (./source-map.ts). Reads
 * the trace from the file, or from stdin, and prints it with each `index.mjs:line:column` frame
 * replaced by `source:line:column`. Run it at the commit that was deployed.
 */
import { readFileSync } from 'node:fs';
import type { BuildOptions } from 'esbuild';
import { functionList } from '../../core/routes.ts';
import { mapStackTrace, rebuild } from './source-map.ts';

/** The command's exit status; `bundling`: the deployed bundle's esbuild options. */
export async function stackTraceCommand(
  argv: readonly string[],
  bundling: BuildOptions,
): Promise<number> {
  const [routeId, file] = argv;
  if (!routeId || routeId.startsWith('-')) {
    process.stderr.write(
      `usage: npm run --silent stack-trace -- <${functionList.map((fn) => fn.id).join('|')}> [file]\n` +
        '  (reads the trace from the file, or from stdin)\n',
    );
    return 2;
  }
  try {
    const { map } = await rebuild(routeId, bundling);
    process.stdout.write(mapStackTrace(readFileSync(file ?? 0, 'utf8'), map));
    return 0;
  } catch (error) {
    process.stderr.write(
      `stack-trace: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}
