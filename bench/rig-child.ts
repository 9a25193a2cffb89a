/**
 * The local rig in its own process (bench/children/rig.ts) for the throughput runs and the
 * soak, stopped over IPC on cleanup (SIGKILL after 15 s).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/project-root.ts';
import { writeSeedFile } from './cases.ts';
import { log, WORK } from './config.ts';
import type { Processes } from './processes.ts';

export interface RigChild {
  pid: number;
  apiUrl: string;
  /** Access tokens of the demo users `teller` and `compliance`. */
  tokens: Record<string, string>;
}

export async function startRigChild(processes: Processes): Promise<RigChild> {
  log('throughput: starting the local rig (DynamoDB Local, Cognito, S3, gateway)');
  const seed = join(WORK, 'seed.jsonl');
  writeSeedFile(seed);
  const args = ['bench/children/rig.ts', join(WORK, 'rig'), seed, join(WORK, 'bundles')];
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
      child.once('exit', (code) => reject(new Error(`the local rig exited (${code})`)));
    },
  );
  return { pid: child.pid!, ...ready };
}
