/**
 * AWS Control Tower's proactive controls (AWS's own CloudFormation Guard rules, shipped with the
 * `cfn-guard` binary in `@cdklabs/cdk-validator-cfnguard`) over every stage the infra tests
 * synthesize. A control holds, or a decision record under docs/decisions/ names it, says why it
 * does not fit and what covers its purpose, and lists the resources it may fail on: a new failing
 * control, or a decided one failing on another resource, fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { routes } from '../../../core/routes.ts';
import { DISPOSABLE_DEV_CONTEXT, resourcesOf, synthesize } from '../synth.ts';
import { outputOf } from '../../support/output-of.ts';

const STAGES = [
  ['the default stage', {}],
  ['a named stage', { stage: 'prod' }],
  ['a disposable stage', DISPOSABLE_DEV_CONTEXT],
] as const;

/**
 * Each control that does not fit: its decision record, and the logical ids (their prefixes)
 * it may fail on.
 */
const DISTRIBUTION = '0027-the-staff-page-distribution.md';
const S3 = '0030-s3-controls-that-do-not-fit.md';
const DECIDED: Record<string, { record: string; on: RegExp }> = {
  'CT.CLOUDFRONT.PR.4': { record: DISTRIBUTION, on: /^StaffAppDistribution/ },
  'CT.CLOUDFRONT.PR.5': { record: DISTRIBUTION, on: /^StaffAppDistribution/ },
  'CT.CLOUDFRONT.PR.6': { record: DISTRIBUTION, on: /^StaffAppDistribution/ },
  'CT.CLOUDFRONT.PR.7': { record: DISTRIBUTION, on: /^StaffAppDistribution/ },
  'CT.CLOUDFRONT.PR.9': { record: DISTRIBUTION, on: /^StaffAppDistribution/ },
  'CT.LAMBDA.PR.2': { record: '0028-functions-outside-a-vpc.md', on: /IntegrationPermission/ },
  'CT.LAMBDA.PR.3': { record: '0028-functions-outside-a-vpc.md', on: /./ },
  'CT.CLOUDWATCH.PR.3': { record: '0029-log-groups-on-aws-owned-keys.md', on: /./ },
  'CT.S3.PR.2': { record: S3, on: /^(DataAccessLogsBucket|StaffAppLogsBucket)/ },
  'CT.S3.PR.4': { record: S3, on: /Bucket/ },
  'CT.S3.PR.9': { record: S3, on: /Bucket/ },
  // Not the files bucket (ID photos, signatures) nor the import bucket (uploads): each has its key.
  'CT.S3.PR.10': { record: S3, on: /^(DataAccessLogsBucket|StaffApp(Logs)?Bucket)/ },
  // The import rule's dead-letter queue: read by a person, never redriven.
  'CT.SQS.PR.1': {
    record: '0033-the-dropped-uploads-queue-has-no-queue-of-its-own.md',
    on: /^ImportDroppedUploads/,
  },
};

/** The binary the package ships for this machine, if it ships one. */
function guardBinary(): string | undefined {
  const dir = dirname(
    createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json'),
  );
  const os = { linux: 'ubuntu', darwin: 'macos' }[platform() as string];
  const cpu = { x64: 'x86_64', arm64: 'aarch64' }[arch() as string];
  const binary = join(dir, 'bin', os ?? '-', cpu ?? '-', 'cfn-guard');
  return existsSync(binary) ? binary : undefined;
}

const guard = guardBinary();
const rulesDir = join(
  dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json')),
  'rules/control-tower/cfn-guard',
);
if (!guard) console.warn(`SKIPPED the Control Tower controls: no cfn-guard for ${platform()}`);
const describeWithGuard = guard ? describe : describe.skip;

/** Failing controls of one template: control id → the logical ids it fails on. */
async function failingControls(template: string): Promise<Map<string, Set<string>>> {
  const { stdout, stderr, code } = await outputOf(guard!, [
    'validate',
    '--rules',
    rulesDir,
    '--data',
    template,
    '--output-format',
    'json',
    '--show-summary',
    'none',
    '--structured',
  ]);
  // 19: a control failed; anything else but 0 is cfn-guard itself failing.
  if (code !== 0 && code !== 19) throw new Error(`cfn-guard: ${stderr}`);
  const failing = new Map<string, Set<string>>();
  for (const result of JSON.parse(stdout) as { not_compliant: unknown[] }[])
    for (const check of result.not_compliant) {
      const text = JSON.stringify(check);
      const control = /\[(CT\.[A-Z0-9]+\.PR\.\d+)\]/.exec(text)?.[1] ?? text.slice(0, 200);
      const on = failing.get(control) ?? new Set<string>();
      for (const [, id] of text.matchAll(/"\/Resources\/([A-Za-z0-9]+)/g)) on.add(id!);
      failing.set(control, on);
    }
  return failing;
}

describeWithGuard("AWS Control Tower's proactive controls", () => {
  const found = new Map<string, Map<string, Set<string>>>();
  beforeAll(async () => {
    const results = await Promise.all(
      STAGES.map(([, context]) => {
        const synth = synthesize({ context });
        return failingControls(join(synth.outdir, `${synth.stack.stackName}.template.json`));
      }),
    );
    STAGES.forEach(([name], i) => found.set(name, results[i]!));
    // cfn-guard over three templates: minutes on a busy machine.
  }, 600_000);

  test.each(STAGES.map(([name]) => name))(
    '%s: every failing control has its decision, on the resources it names',
    (stage) => {
      const unexplained: string[] = [];
      for (const [control, on] of found.get(stage)!) {
        const decided = DECIDED[control];
        if (!decided) unexplained.push(`${control} on ${[...on].join(', ')}`);
        else for (const id of on) if (!decided.on.test(id)) unexplained.push(`${control} on ${id}`);
      }
      expect(unexplained).toEqual([]);
    },
  );

  test('each decision names its control and is still needed by some stage', () => {
    for (const [control, { record }] of Object.entries(DECIDED)) {
      const text = readFileSync(join(PROJECT_ROOT, 'docs/decisions', record), 'utf8');
      expect([control, text.includes(`\`${control}\``)]).toEqual([control, true]);
      expect([control, [...found.values()].some((f) => f.has(control))]).toEqual([control, true]);
    }
  });
});

/** What CT.LAMBDA.PR.2 asks, which its rule cannot read in CDK's Fn::Join (decision 28). */
test.each(STAGES)(
  '%s: only this API invokes the functions, from its own routes',
  (_name, context) => {
    const { json } = synthesize({ context });
    const permissions = resourcesOf(json, 'AWS::Lambda::Permission');
    const api = resourcesOf(json, 'AWS::ApiGatewayV2::Api').map(([id]) => id);
    expect([permissions.length, api.length]).toEqual([routes.length, 1]);
    const paths: string[] = [];
    for (const [id, p] of permissions) {
      expect([id, p.Properties!.Principal, p.Properties!.SourceAccount]).toEqual([
        id,
        'apigateway.amazonaws.com',
        undefined,
      ]);
      const arn = p.Properties!.SourceArn['Fn::Join'][1] as unknown[];
      expect(arn).toContainEqual({ Ref: api[0] });
      paths.push(arn.at(-1) as string);
    }
    // Each permission for one route of this API, any stage and method: every route, no other.
    expect(paths.sort()).toEqual(routes.map((r) => `/*/*${r.path}`).sort());
  },
);
