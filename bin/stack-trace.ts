/**
 * `npm run --silent stack-trace -- <function> [file]`: commands/stack-trace/cli.ts, with the
 * esbuild options `cdk synth` bundles with, which only lib/ knows and commands/ may not import.
 */
import { BUNDLING } from '../lib/project-function.ts';
import { esbuildOptions } from '../lib/esbuild-options.ts';
import { stackTraceCommand } from '../commands/stack-trace/cli.ts';

process.exitCode = await stackTraceCommand(process.argv.slice(2), esbuildOptions(BUNDLING));
