/**
 * CPU affinity through `taskset` (util-linux): section 11 holds a step's process to one core, as
 * a Lambda function of 1,769 MB gets one vCPU, and moves DynamoDB Local and the bench's own
 * process (the local S3) to the other, so that neither takes the step's core.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

function taskset(args: string[]): string {
  const run = spawnSync('taskset', args, { encoding: 'utf8' });
  if (run.error) throw new Error(`taskset: ${run.error.message}`);
  if (run.status !== 0) throw new Error(`taskset ${args.join(' ')}: ${run.stderr.trim()}`);
  return run.stdout;
}

/** Why the section cannot hold a process to one core here; undefined when it can. */
export function affinityProblem(): string | undefined {
  if (availableParallelism() < 2) return 'one core for the step and one for the rest: 2 needed';
  try {
    taskset(['-c', '-p', String(process.pid)]);
    return undefined;
  } catch (error) {
    return `no usable taskset (util-linux): ${(error as Error).message}`;
  }
}

/** A process's CPU list as taskset prints it ("0,1", "0-3"). */
export function affinityOf(pid: number): string {
  const list = /list:\s*(\S+)/.exec(taskset(['-c', '-p', String(pid)]))?.[1];
  if (!list) throw new Error(`taskset printed no CPU list for ${pid}`);
  return list;
}

/** Every thread of `pid` (-a: a JVM's and Node.js's helper threads too) onto `cpus`. */
export function setAffinity(pid: number, cpus: string): void {
  taskset(['-a', '-c', '-p', cpus, String(pid)]);
}

/** A command line run under taskset on `cpus`. */
export const onCpus = (cpus: string, command: string, args: string[]) => ({
  command: 'taskset',
  args: ['-c', cpus, command, ...args],
});
