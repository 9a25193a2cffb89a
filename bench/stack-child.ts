/**
 * The local stack in its own process (bench/children/stack.ts) for the throughput runs and the
 * soak, stopped over IPC on cleanup (SIGKILL after 15 s).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/project-root.ts';
import { writeSeedFile } from './cases.ts';
import { log, WORK } from './config.ts';
import type { Processes } from './processes.ts';

export interface StackChild {
  pid: number;
  apiUrl: string;
  /** Access tokens of the demo users `teller` and `compliance`. */
  tokens: Record<string, string>;
}

export async function startStackChild(processes: Processes): Promise<StackChild> {
  log('throughput: starting the local stack (DynamoDB Local, Cognito, S3, gateway)');
  const seed = join(WORK, 'seed.jsonl');
  writeSeedFile(seed);
  const args = ['bench/children/stack.ts', join(WORK, 'stack'), seed, join(WORK, 'bundles')];
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  processes.track(child);
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  processes.onCleanup(async () => {
    if (child.connected) child.send('stop');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await stopped;
    clearTimeout(timer);
  });
  const ready = await new Promise<{ apiUrl: string; tokens: Record<string, string> }>(
    (resolve, reject) => {
      child.once('message', (m) => resolve(m as never));
      child.once('exit', (code) => reject(new Error(`the local stack exited (${code})`)));
    },
  );
  return { pid: child.pid!, ...ready };
}
