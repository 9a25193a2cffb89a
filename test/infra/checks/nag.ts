/**
 * cdk-nag 3 (AwsSolutions pack): nothing unacknowledged, every acknowledgement justified and
 * still needed, and synth itself failing on a new finding; for the default stage and for a
 * named disposable stage (which adds the buckets' emptying custom resource).
 */
import { Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { createApp } from '../../../lib/app.ts';
import {
  CDK_JSON_CONTEXT,
  synthesize,
  type Synthesized,
  DISPOSABLE_DEV_CONTEXT,
} from '../synth.ts';

let s: Synthesized;
let dev: Synthesized;
beforeAll(() => {
  s = synthesize();
  dev = synthesize({ context: DISPOSABLE_DEV_CONTEXT });
});
const stages = [
  ['default stage', () => s],
  ['disposable dev stage', () => dev],
] as const;

interface Acknowledgement {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

function acknowledgements(root: IConstruct): Acknowledgement[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

/** Findings of the pack with acknowledgements ignored: what the stack would report bare. */
function rawFindings(root: IConstruct): { ruleName: string; paths: string[] }[] {
  const pack = new AwsSolutionsChecks();
  (pack as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
  return pack.validateScope(root).violations.map((v) => ({
    ruleName: v.ruleName,
    paths: v.violatingResources.map((r) => r.constructPath ?? ''),
  }));
}

test.each(stages)(
  '%s: the AwsSolutions pack reports no unacknowledged finding, error or warning',
  (_name, get) => {
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(get().app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.description}`)).toEqual([]);
    expect(report.success).toBe(true);
  },
);

test.each(stages)(
  '%s: every acknowledgement names an AwsSolutions rule, gives a real reason and silences a real finding',
  (_name, get) => {
    const acks = acknowledgements(get().app);
    expect(acks.length).toBeGreaterThan(0);
    const raw = rawFindings(get().app);
    for (const ack of acks) {
      expect(ack.id).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(ack.reason.length).toBeGreaterThanOrEqual(80);
      const silenced = raw.find(
        (f) =>
          f.ruleName === ack.id &&
          f.paths.some((p) => p === ack.path || p.startsWith(`${ack.path}/`)),
      );
      expect([ack.id, ack.path, silenced !== undefined]).toEqual([ack.id, ack.path, true]);
    }
  },
);

test('acknowledgements sit on the resource constructs, not on the app, stack or a whole concern', () => {
  for (const ack of acknowledgements(s.app)) {
    expect(ack.path.split('/').length).toBeGreaterThan(2);
  }
});

test('synth fails when a new AwsSolutions error appears', () => {
  const { app, stack } = createApp({
    outdir: `${s.outdir}/broken`,
    context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] },
  });
  new Bucket(stack, 'UnloggedBucket', { enforceSSL: true });
  expect(() => app.synth()).toThrow(/AwsSolutions-S1/);
});
