/**
 * issue 24: `npm test` shows what the code under test logged only for a failing test
 * (test/support/quiet-environment.ts). A child jest runs test/quiet-fixtures/logs.fixture.ts.
 */
import { execFile } from 'node:child_process';
import { PROJECT_ROOT } from '../../core/project-root.ts';

function runFixture(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [
        'node_modules/jest/bin/jest.js',
        '--ci',
        '--silent=false',
        '--testMatch',
        '<rootDir>/test/quiet-fixtures/*.fixture.ts',
        '--runTestsByPath',
        'test/quiet-fixtures/logs.fixture.ts',
      ],
      { cwd: PROJECT_ROOT, env: { ...process.env, CI: 'true' } },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, output: stdout + stderr }),
    );
  });
}

test('a passing test shows no log line; a failing one shows what its code wrote', async () => {
  const { code, output } = await runFixture();
  expect(code).toBe(1);
  expect(output).toContain('Tests:       1 failed, 1 passed, 2 total');
  expect(output).not.toContain('passing-marker');
  for (const line of [
    '"message":"failing-marker"',
    '{"marker":"failing-marker"}',
    'console failing-marker',
    'stderr failing-marker',
  ]) {
    expect(output).toContain(line);
  }
});
