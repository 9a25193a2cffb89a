/**
 * Everything the benchmark starts, so that it is all stopped at the end, also on Ctrl-C: the
 * cleanups first, in reverse order (the local rig stops its own DynamoDB Local, which a SIGKILL
 * would orphan), then whatever child process is left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PROJECT_ROOT } from '../core/project-root.ts';
import type { Spec } from './children/invoke.ts';

export class Processes {
  private readonly cleanups: (() => Promise<void> | void)[] = [];
  private readonly children = new Set<ChildProcess>();

  /** A child process to kill at the end if it is still there; untracked when it exits. */
  track<T extends ChildProcess>(child: T): T {
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    return child;
  }

  onCleanup(fn: () => Promise<void> | void): void {
    this.cleanups.push(fn);
  }

  async cleanup(): Promise<void> {
    for (const fn of this.cleanups.splice(0).reverse()) await Promise.resolve(fn()).catch(() => {});
    for (const child of this.children) child.kill('SIGKILL');
  }
}

/** bench/children/invoke.ts as one file with node: built-ins only, so that only the bundle under test loads. */
export async function buildInvokeScript(work: string): Promise<string> {
  const outfile = join(work, 'children', 'invoke.mjs');
  await build({
    entryPoints: [join(PROJECT_ROOT, 'bench', 'children', 'invoke.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'warning',
  });
  return outfile;
}

export interface Invoker {
  processes: Processes;
  /** The built bench/children/invoke.ts. */
  script: string;
  /** Where the functions' log lines go, a file per mode. */
  logDir: string;
}

/**
 * Runs the invoke script in a fresh Node.js process; resolves with its BENCH result.
 * Asynchronous: the counting proxy serves from this process meanwhile.
 */
export async function invoke<T>(
  invoker: Invoker,
  spec: Spec,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): Promise<T> {
  const logs = openSync(join(invoker.logDir, `${spec.mode}.log`), 'a');
  const child = spawn(process.execPath, [...nodeArgs, invoker.script, JSON.stringify(spec)], {
    env,
    // stdout (the functions' log lines) to a file; the result comes on fd 3.
    stdio: ['ignore', logs, 'pipe', 'pipe'],
  });
  closeSync(logs);
  invoker.processes.track(child);
  let result = '';
  let stderr = '';
  child.stdio[3]!.on('data', (d: Buffer) => (result += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0 || !result.startsWith('BENCH '))
    throw new Error(`invoke ${spec.mode} ${spec.bundle} failed (${code}): ${stderr}`);
  return JSON.parse(result.slice(6)) as T;
}
