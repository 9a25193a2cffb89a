/**
 * AWS's CloudFormation linter over the stages' templates (the default, a named disposable stage
 * with an alarm e-mail, and the default with its optional settings): nothing but W3005, the dependency CDK states twice on purpose
 * (a function's role, also reached by GetAtt). Where `cfn-lint` is not installed the test is
 * skipped and says so, as the browser test does for Chromium.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BASE_STACK_NAME } from '../../../stage/stage.ts';
import { DISPOSABLE_DEV_CONTEXT, EVERY_OPTION_CONTEXT, synthesize } from '../synth.ts';
import { outputOf } from '../../support/output-of.ts';

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
  const stages = [
    ['the default stage', {}, BASE_STACK_NAME],
    [
      'a disposable dev stage',
      DISPOSABLE_DEV_CONTEXT,
      `${BASE_STACK_NAME}-${DISPOSABLE_DEV_CONTEXT.stage}`,
    ],
    // Aliases, an ACM certificate and SES mail, which the other two do not have.
    ['the default stage on its own domain', EVERY_OPTION_CONTEXT, BASE_STACK_NAME],
  ] as const;
  const templateOf = (context: Record<string, unknown>, stackName: string) =>
    join(synthesize({ context }).outdir, `${stackName}.template.json`);
  /** One cfn-lint run over every template: its start is most of its time. */
  let lint: { stdout: string; stderr: string };
  beforeAll(async () => {
    const templates = stages.map(([, context, stackName]) => templateOf(context, stackName));
    lint = await outputOf('cfn-lint', ['--format', 'parseable', ...templates]);
    // Each finding names one of the templates: none is left out of the tests below.
    const lines = lint.stdout.split('\n').filter((line) => line.trim() !== '');
    expect(lines.filter((line) => !templates.some((t) => line.startsWith(`${t}:`)))).toEqual([]);
  }, 180_000);

  test.each(stages)('%s: nothing but W3005', (_name, context, stackName) => {
    const template = templateOf(context, stackName);
    const findings = lint.stdout
      .split('\n')
      .filter((line) => line.startsWith(`${template}:`))
      // file:line:column:end line:end column:RULE:message
      .map((line) => /:([EWI]\d{4}):/.exec(line)?.[1] ?? line);
    expect(lint.stderr).toBe('');
    expect(findings.filter((rule) => !EXPECTED.has(rule))).toEqual([]);
  });
});
