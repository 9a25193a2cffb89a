/**
 * Synthesizes the app the way `cdk synth` does (same createApp, same cdk.json context) into a
 * temporary directory. Each variant (options) is synthesized once per module registry: the checks
 * of test/infra/checks/ all run in one (test/infra/stack.test.ts), so each stage variant is
 * synthesized once per run and every check reads it. Bundling is skipped unless a check inspects
 * the bundles: the template is the same either way, and esbuild is the slow part of a synth.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { createApp } from '../../lib/app.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import type { ReadApiStack } from '../../lib/stack.ts';

/** The context `cdk synth` passes from cdk.json: feature flags and default settings. */
export const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

/** The named disposable stage the tests synthesize beside the default one (stage/stage.ts). */
export const DISPOSABLE_DEV_CONTEXT = {
  stage: 'dev',
  disposable: 'true',
  alarmEmail: 'ops@example.com',
} as const;

/** The three kinds of stage a deploy rule is held on: default, named and kept, disposable. */
export const THREE_STAGES = [
  ['the default stage', {}],
  ['a named stage', { stage: 'prod' }],
  ['a disposable stage', DISPOSABLE_DEV_CONTEXT],
] as const;

/**
 * The default stage with every optional stage setting of issue 54 given: the staff page on the
 * business's own domain (a certificate ARN of ACM's form, in us-east-1), all CloudFront edges,
 * and staff mail through SES.
 */
export const EVERY_OPTION_CONTEXT = {
  staffPageDomain: 'staff.example.com',
  staffPageCertificateArn:
    'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d',
  priceClass: 'PriceClass_All',
  sesFromAddress: 'staff-access@example.com',
} as const;

export interface Synthesized {
  readonly app: App;
  readonly stack: ReadApiStack;
  readonly assembly: CloudAssembly;
  readonly template: Template;
  /** The template as JSON, for checks that walk every resource. */
  readonly json: CfnTemplate;
  readonly outdir: string;
  /** CloudFormation logical id of a construct's default resource (or of the resource itself). */
  logicalId(construct: { node: { defaultChild?: unknown } }): string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CloudFormation properties are free-form JSON
export type Json = any;

export interface CfnResource {
  Type: string;
  Properties?: Record<string, Json>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

const syntheses = new Map<string, Synthesized>();
const outdirs: string[] = [];

/** The app synthesized with `options`: built on the first call, the same object after. */
export function synthesize(
  options: { bundle?: boolean; context?: Record<string, unknown> } = {},
): Synthesized {
  const key = JSON.stringify([options.bundle ?? false, options.context ?? {}]);
  let found = syntheses.get(key);
  if (!found) syntheses.set(key, (found = synthesizeOnce(options)));
  return found;
}

/** Removes every synthesized output of this module registry (its checks' last afterAll). */
export function removeSyntheses(): void {
  for (const outdir of outdirs.splice(0)) rmSync(outdir, { recursive: true, force: true });
  syntheses.clear();
  scratch = undefined;
}

let scratch: string | undefined;

/**
 * The output directory for an app a check builds but never synthesizes (an App given none makes
 * a temporary directory of its own, and leaves it behind).
 */
export function scratchOutdir(): string {
  if (scratch === undefined) outdirs.push((scratch = mkdtempSync(join(tmpdir(), 'cdk-test-'))));
  return scratch;
}

function synthesizeOnce(options: {
  bundle?: boolean;
  context?: Record<string, unknown>;
}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
  outdirs.push(outdir);
  const context: Record<string, unknown> = { ...CDK_JSON_CONTEXT, ...options.context };
  if (!options.bundle) context['aws:cdk:bundling-stacks'] = [];
  const { app, stack } = createApp({ outdir, context });
  const assembly = app.synth();
  const json = assembly.getStackArtifact(stack.artifactId).template as CfnTemplate;
  return {
    app,
    stack,
    assembly,
    template: Template.fromJSON(json),
    json,
    outdir,
    logicalId: (construct) => {
      const element = (construct.node.defaultChild ?? construct) as Parameters<
        ReadApiStack['getLogicalId']
      >[0];
      return stack.resolve(stack.getLogicalId(element)) as string;
    },
  };
}

/** Resources of one CloudFormation type, by logical id. */
export function resourcesOf(json: CfnTemplate, type: string): [string, CfnResource][] {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

/**
 * The resources of a type under a construct of the stack (`Api`: the routes' functions, roles and
 * log groups; `Import`: the import drop's), by the logical id CDK derives from the path.
 */
export function resourcesUnder(json: CfnTemplate, type: string, construct: string) {
  return resourcesOf(json, type).filter(([id]) => id.startsWith(construct));
}

/** The only resource of a type; fails if there are none or several. */
export function onlyResource(json: CfnTemplate, type: string): [string, CfnResource] {
  const found = resourcesOf(json, type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0]!;
}

/**
 * The default stage and a disposable dev stage (synthesized once per run):
 * `describe.each(bothStages())('%s', (name, get) => ...)`.
 */
export function bothStages() {
  let prod: Synthesized | undefined;
  let dev: Synthesized | undefined;
  beforeAll(() => {
    prod = synthesize();
    dev = synthesize({ context: DISPOSABLE_DEV_CONTEXT });
  });
  return [
    ['default stage', () => prod!],
    ['disposable dev stage', () => dev!],
  ] as const;
}

/** The state machine's definition with its references replaced by placeholders. */
export function definitionOf(json: CfnTemplate): Json {
  const [, machine] = resourcesOf(json, 'AWS::StepFunctions::StateMachine')[0]!;
  const parts = machine.Properties!.DefinitionString['Fn::Join'][1] as Json[];
  const text = parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = part.Ref ?? part['Fn::GetAtt']?.[0] ?? 'X';
      if (ref === 'AWS::Partition') return 'aws';
      if (ref === 'AWS::Region') return 'eu-west-1';
      if (ref === 'AWS::AccountId') return '123456789012';
      if (part['Fn::GetAtt']) return `arn:aws:lambda:eu-west-1:123456789012:function:${ref}`;
      return ref.includes('Topic')
        ? `arn:aws:sns:eu-west-1:123456789012:${ref}`
        : ref.toLowerCase();
    })
    .join('');
  return JSON.parse(text);
}
