/**
 * AWS's CloudFormation linter over both stages' templates (the default, and a named disposable
 * stage with an alarm e-mail): nothing but W3005, the dependency CDK states twice on purpose
 * (a function's role, also reached by GetAtt). Where `cfn-lint` is not installed the test is
 * skipped and says so, as the browser test does for Chromium.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { STACK_NAME } from '../../../lib/app';
import { DISPOSABLE_DEV_CONTEXT, synthesize, type Synthesized } from '../synth';

/** What cfn-lint may report: CDK's usual W3005. */
const EXPECTED = new Set(['W3005']);

function cfnLintVersion(): string | undefined {
  try {
    return execFileSync('cfn-lint', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

const version = cfnLintVersion();
if (!version)
  console.warn('SKIPPED the cfn-lint test: cfn-lint is not installed (pip install cfn-lint)');
const describeWithLinter = version ? describe : describe.skip;

describeWithLinter(`cfn-lint (${version ?? 'not installed'})`, () => {
  const stages: [string, () => Synthesized, string][] = [];
  let synths: Synthesized[] = [];
  beforeAll(() => {
    synths = [synthesize(), synthesize({ context: DISPOSABLE_DEV_CONTEXT })];
  }, 180_000);
  stages.push(
    ['the default stage', () => synths[0]!, STACK_NAME],
    ['a disposable dev stage', () => synths[1]!, `${STACK_NAME}-${DISPOSABLE_DEV_CONTEXT.stage}`],
  );

  test.each(stages)(
    '%s: nothing but W3005',
    (_name, synth, stackName) => {
      const template = join(synth().outdir, `${stackName}.template.json`);
      const result = spawnSync('cfn-lint', ['--format', 'parseable', template], {
        encoding: 'utf8',
      });
      const findings = result.stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        // file:line:column:end line:end column:RULE:message
        .map((line) => /:([EWI]\d{4}):/.exec(line)?.[1] ?? line);
      expect(result.stderr).toBe('');
      expect(findings.filter((rule) => !EXPECTED.has(rule))).toEqual([]);
    },
    120_000,
  );
});
