/**
 * Issue 24 item 4: a command given something it cannot use says so in one line, with what to do,
 * and exits non-zero; no Node stack trace, no errno code.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { line, transaction } from '../fixtures.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'cli-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(script: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [script, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...CLEAN_ENV, LOCAL_DATA_DIR: dir, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One line, ending in a newline, with no stack frame. */
function expectOneLine(stderr: string): void {
  expect(stderr.split('\n')).toHaveLength(2);
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr).not.toContain('    at ');
}

test('import of a file that does not exist: "no such file", exit 2', () => {
  const missing = join(dir, 'missing.jsonl');
  const r = run('bin/import.ts', [missing]);
  expect(r.status).toBe(2);
  expect(r.stderr).toBe(`no such file: ${missing}\n`);
  expect(r.stderr).not.toContain('ENOENT');
});

test('import of a directory: asks for a .jsonl file, exit 2', () => {
  const r = run('bin/import.ts', [dir]);
  expect(r.status).toBe(2);
  expect(r.stderr).toBe(`${dir} is a directory, give a .jsonl file\n`);
  expect(r.stderr).not.toContain('EISDIR');
});

test('audit of a record id with leading zeros: says to write it without them', () => {
  const r = run('bin/audit.ts', ['transaction', '007']);
  expect(r.status).toBe(2);
  expectOneLine(r.stderr);
  expect(r.stderr).toContain('without leading zeros');
  expect(r.stderr).toContain('7, not 007');
  expect(r.stderr).not.toContain('positive whole numbers');
});

test('audit of a record id that is no number: says ids are positive whole numbers', () => {
  const r = run('bin/audit.ts', ['customer', 'abc']);
  expect(r.status).toBe(2);
  expectOneLine(r.stderr);
  expect(r.stderr).toContain('positive whole numbers');
});

test('synth with a stage name that cannot be one: the rule in one line, no stack trace', () => {
  const r = run('bin/app.ts', [], {
    CDK_CONTEXT_JSON: JSON.stringify({ stage: 'Dev_1' }),
    CDK_OUTDIR: join(dir, 'cdk.out'),
  });
  expect(r.status).toBe(1);
  expectOneLine(r.stderr);
  expect(r.stderr).toContain('"Dev_1"');
  expect(r.stderr).toContain('lower-case letters, digits or single hyphens');
});

test('synth with a read budget out of range: the setting, the value and the range', () => {
  const r = run('bin/app.ts', [], {
    CDK_CONTEXT_JSON: JSON.stringify({ readBudgetCustomers: '1000000' }),
    CDK_OUTDIR: join(dir, 'cdk.out'),
  });
  expect(r.status).toBe(1);
  expectOneLine(r.stderr);
  expect(r.stderr).toContain('readBudgetCustomers must be a whole number from 1 to 100000');
  expect(r.stderr).toContain('"1000000"');
});

describe('a deployed stack without AWS set up: what to set, in one line', () => {
  const file = join(dir, 'one.jsonl');
  writeFileSync(file, `${line('transaction', transaction())}\n`);
  // No region, no credentials anywhere: an empty home, and no instance metadata to ask.
  const bare = { HOME: dir, AWS_EC2_METADATA_DISABLED: 'true' };
  const withRegion = { ...bare, AWS_REGION: 'eu-west-1' };
  const REGION = 'no AWS region is set: set AWS_REGION';
  const CREDENTIALS = 'no AWS credentials were found: set AWS_PROFILE';

  test.each([
    ['import --stack', 'bin/import.ts', [file, '--stack', 'SomeStack'], 'Import failed: '],
    ['import --stage', 'bin/import.ts', [file, '--stage', 'dev'], 'Import failed: '],
    ['token --stack', 'bin/token.ts', ['--stack', 'SomeStack', 'a@example.com'], 'token: '],
  ])(
    '%s',
    (_name, script, args, prefix) => {
      for (const [env, words] of [
        [bare, REGION],
        [withRegion, CREDENTIALS],
      ] as const) {
        const r = run(script, args, env);
        expect(r.status).toBe(1);
        expectOneLine(r.stderr);
        expect(r.stderr.startsWith(`${prefix}${words}`)).toBe(true);
        expect(r.stderr).not.toMatch(/Region is missing|Could not load credentials/);
      }
    },
    120_000,
  );
});
