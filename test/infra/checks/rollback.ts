/**
 * The rehearsal of a failed create, at every step. CloudFormation's create order is not fixed
 * (it runs whatever has what it needs), so when a resource R fails, every resource that does not
 * depend on R may exist; the rollback then deletes each of them as its type's handler documents,
 * and one it cannot delete leaves the stack in ROLLBACK_FAILED, which `cdk deploy` cannot retry.
 * For each R of each stage, each resource that may exist (R too, made in part) must be kept
 * (DeletionPolicy Retain) or deletable then.
 */
import {
  THREE_STAGES,
  resourcesOf,
  synthesize,
  type CfnResource,
  type CfnTemplate,
  type Json,
} from '../synth.ts';

const list = <T>(x: T | T[] | undefined): T[] =>
  x === undefined ? [] : Array.isArray(x) ? x : [x];

/** The logical ids a value refers to: Ref, Fn::GetAtt and Fn::Sub's ${Id}. */
function references(value: Json, ids: Set<string>, into = new Set<string>()): Set<string> {
  if (typeof value === 'string')
    for (const [, id] of value.matchAll(/\$\{([A-Za-z0-9]+)[.}]/g)) if (ids.has(id!)) into.add(id!);
  if (Array.isArray(value)) for (const v of value) references(v, ids, into);
  else if (value && typeof value === 'object') {
    if (typeof value.Ref === 'string' && ids.has(value.Ref)) into.add(value.Ref);
    if (Array.isArray(value['Fn::GetAtt'])) into.add(value['Fn::GetAtt'][0]);
    for (const v of Object.values(value)) references(v, ids, into);
  }
  return into;
}

/** Each resource's dependencies, direct and indirect. */
function dependencies(t: CfnTemplate): Map<string, Set<string>> {
  const ids = new Set(Object.keys(t.Resources));
  const direct = new Map(
    Object.entries(t.Resources).map(([id, r]) => [
      id,
      new Set([...references(r.Properties ?? {}, ids), ...list<string>((r as Json).DependsOn)]),
    ]),
  );
  const all = new Map<string, Set<string>>();
  const walk = (id: string): Set<string> => {
    let found = all.get(id);
    if (found) return found;
    all.set(id, (found = new Set()));
    for (const d of direct.get(id)!) {
      found.add(d);
      for (const dd of walk(d)) found.add(dd);
    }
    return found;
  };
  for (const id of ids) walk(id);
  return all;
}

/**
 * What puts objects into a bucket while a create runs. The bucket deployment copies before its
 * create returns; log delivery (S3's server access logs, CloudFront's standard logs) writes when
 * it will, possibly after the rollback began.
 */
export function writersOf(t: CfnTemplate, bucket: string): { id: string; late: boolean }[] {
  const refers = (value: Json) => references(value, new Set([bucket])).has(bucket);
  const writers: { id: string; late: boolean }[] = [];
  for (const [id, r] of Object.entries(t.Resources)) {
    const p = r.Properties ?? {};
    if (r.Type === 'Custom::CDKBucketDeployment' && refers(p.DestinationBucketName))
      writers.push({ id, late: false });
    if (r.Type === 'AWS::S3::Bucket' && refers(p.LoggingConfiguration?.DestinationBucketName))
      writers.push({ id, late: true });
    if (r.Type === 'AWS::CloudFront::Distribution' && refers(p.DistributionConfig?.Logging))
      writers.push({ id, late: true });
  }
  return writers;
}

/** The service refuses to delete these while their deletion protection is on. */
export const PROTECTED: Record<string, (r: CfnResource) => boolean> = {
  'AWS::DynamoDB::Table': (r) => r.Properties!.DeletionProtectionEnabled === true,
  'AWS::Cognito::UserPool': (r) => r.Properties!.DeletionProtection === 'ACTIVE',
  'AWS::Logs::LogGroup': (r) => r.Properties!.DeletionProtectionEnabled === true,
};

/**
 * Every other type the stages hold, and why its handler deletes it whatever it holds then. A new
 * type fails the rehearsal until its handler's delete is read and named here.
 */
const DELETED_WHATEVER_IT_HOLDS: Record<string, string> = {
  'AWS::ApiGatewayV2::Api': 'deletes its routes, stages and integrations with it',
  'AWS::ApiGatewayV2::Authorizer': 'a setting of its API',
  'AWS::ApiGatewayV2::Integration': 'a setting of its API',
  'AWS::ApiGatewayV2::Route': 'a setting of its API',
  'AWS::ApiGatewayV2::Stage': 'a setting of its API',
  'AWS::CloudFront::Distribution': 'the handler disables it, waits, then deletes it',
  'AWS::CloudFront::Function': 'deleted after the distribution that uses it (it depends on it)',
  'AWS::CloudFront::OriginAccessControl': 'deleted after the distribution that uses it',
  'AWS::CloudFront::ResponseHeadersPolicy': 'deleted after the distribution that uses it',
  'AWS::CloudWatch::Alarm': 'a definition; its history goes with it',
  'AWS::CloudWatch::Dashboard': 'a definition',
  'AWS::CloudWatch::InsightRule': 'a definition',
  'AWS::Cognito::UserPoolClient': 'a setting of its pool',
  'AWS::Cognito::UserPoolGroup': 'a setting of its pool',
  'AWS::Cognito::UserPoolRiskConfigurationAttachment': 'a setting of its pool',
  'AWS::Events::Rule': 'the handler removes its targets first',
  'AWS::IAM::Policy': 'detached from its roles and deleted',
  'AWS::IAM::Role': 'the handler detaches its policies first',
  'AWS::KMS::Key': 'scheduled for deletion (its pending window), whatever it encrypted',
  'AWS::Lambda::Function': 'deleted after what invokes it at delete time (it depends on it)',
  'AWS::Lambda::LayerVersion': 'a version of code',
  'AWS::Lambda::Permission': 'a statement of its function',
  'AWS::Logs::MetricFilter': 'a setting of its log group',
  'AWS::Logs::QueryDefinition': 'a saved query',
  'AWS::S3::BucketPolicy': 'a setting of its bucket',
  'AWS::SecretsManager::Secret': 'scheduled for deletion; its name is generated',
  'AWS::SNS::Subscription': 'a setting of its topic',
  'AWS::SNS::Topic': 'deletes its subscriptions with it',
  'AWS::SNS::TopicPolicy': 'a setting of its topic',
  'AWS::SQS::Queue': 'deletes its messages with it',
  'AWS::SQS::QueuePolicy': 'a setting of its queue',
  'AWS::StepFunctions::StateMachine': 'stops what runs (nothing starts during a create)',
  'Custom::CDKBucketDeployment': "its handler's delete runs before the bucket's emptying (checked)",
  'Custom::S3AutoDeleteObjects': 'its handler empties its bucket of every version',
  'Custom::S3BucketNotifications': 'its handler clears the bucket notifications',
};

/**
 * Why the rollback could not delete `id` when `existing` exist, or undefined. A bucket goes only
 * when nothing wrote to it or CDK's emptier (Custom::S3AutoDeleteObjects, which deletes every
 * version and delete marker) exists and runs after every writer that copies. Late writers (log
 * delivery) cannot be ordered: a kept stage keeps their buckets (lib/retention.ts); a disposable
 * one, which keeps nothing, empties them, and a delivery landing after the emptying is
 * docs/operations/first-deploy.md's DELETE_FAILED path: such buckets go into `tolerated`, which
 * the test holds to the two log buckets by name.
 */
function refusal(
  t: CfnTemplate,
  id: string,
  existing: Set<string>,
  deps: Map<string, Set<string>>,
  tolerated: Set<string> | undefined,
): string | undefined {
  const r = t.Resources[id]!;
  if (r.DeletionPolicy === 'Retain') return undefined;
  if (PROTECTED[r.Type]?.(r)) return 'deletion protection refuses the delete';
  if (r.Type !== 'AWS::S3::Bucket')
    return r.Type in PROTECTED || r.Type in DELETED_WHATEVER_IT_HOLDS
      ? undefined
      : `no rule for ${r.Type}: read its handler's delete and name it`;
  const writers = writersOf(t, id).filter((w) => existing.has(w.id));
  if (writers.length === 0) return undefined;
  const emptier = resourcesOf(t, 'Custom::S3AutoDeleteObjects').find(
    ([, e]) => e.Properties!.BucketName?.Ref === id && e.DeletionPolicy !== 'Retain',
  )?.[0];
  if (!emptier) return `written by ${writers.map((w) => w.id).join(', ')}; nothing empties it`;
  for (const w of writers) {
    if (w.late && !tolerated) return `${w.id} delivers logs to it at any time`;
    if (w.late) tolerated!.add(id);
    // Created after the emptier, so deleted before it runs.
    if (!w.late && !deps.get(w.id)!.has(emptier))
      return `${w.id} may copy into it while its emptier does not exist`;
  }
  return undefined;
}

/**
 * Every resource that may exist when `failed` fails, and what the rollback refuses of them; in a
 * disposable stage also the buckets it tolerates (refusal).
 */
function rollback(t: CfnTemplate, disposable: boolean) {
  const deps = dependencies(t);
  const refusals = new Set<string>();
  const tolerated = disposable ? new Set<string>() : undefined;
  for (const failed of Object.keys(t.Resources)) {
    // The one that failed too: its handler may have made part of it (a bucket deployment that
    // copied some files).
    const existing = new Set(Object.keys(t.Resources).filter((id) => !deps.get(id)!.has(failed)));
    for (const id of existing) {
      const why = refusal(t, id, existing, deps, tolerated);
      if (why) refusals.add(`${id} (${t.Resources[id]!.Type}): ${why}`);
    }
  }
  return { refusals: [...refusals].sort(), tolerated: [...(tolerated ?? [])].sort() };
}

describe.each(THREE_STAGES)('%s: a failed create rolls back clean', (_name, context) => {
  const disposable = 'disposable' in context;
  test('whichever resource fails, the rollback can delete everything it does not keep', () => {
    const s = synthesize({ context });
    const { refusals, tolerated } = rollback(s.json, disposable);
    expect(refusals).toEqual([]);
    // Only the two log buckets, and only where the stage keeps nothing.
    const logBuckets = [
      s.stack.data.accessLogsBucket,
      s.stack.staffApp.node.findChild('LogsBucket'),
    ];
    expect(tolerated).toEqual(
      disposable ? logBuckets.map((b) => s.logicalId(b as never)).sort() : [],
    );
  });
});

/** The rehearsal against what it must refuse: each case breaks one rule on a small template. */
describe('the rehearsal refuses', () => {
  const bucket = (props: Json = {}, policy = 'RetainExceptOnCreate'): CfnResource => ({
    Type: 'AWS::S3::Bucket',
    Properties: props,
    DeletionPolicy: policy,
  });
  const copy = (dependsOn?: string): Json => ({
    Type: 'Custom::CDKBucketDeployment',
    Properties: { DestinationBucketName: { Ref: 'Page' } },
    ...(dependsOn ? { DependsOn: dependsOn } : {}),
  });
  const emptier: CfnResource = {
    Type: 'Custom::S3AutoDeleteObjects',
    Properties: { BucketName: { Ref: 'Page' } },
    DeletionPolicy: 'Delete',
  };
  const run = (resources: Record<string, Json>) =>
    rollback({ Resources: resources }, false).refusals.map((line) => line.split(' ')[0]);

  test('a bucket the page is copied into without an emptier (the staff page bucket until now)', () => {
    expect(run({ Page: bucket(), Copy: copy() })).toEqual(['Page']);
  });
  test('a copy that does not wait for the emptier', () => {
    expect(run({ Page: bucket(), Copy: copy(), Empty: emptier })).toEqual(['Page']);
    expect(run({ Page: bucket(), Copy: copy('Empty'), Empty: emptier })).toEqual([]);
  });
  test('a log bucket a kept stage would delete', () => {
    const logged = { LoggingConfiguration: { DestinationBucketName: { Ref: 'Logs' } } };
    expect(run({ Logs: bucket(), Source: bucket(logged) })).toEqual(['Logs']);
    expect(run({ Logs: bucket({}, 'Retain'), Source: bucket(logged) })).toEqual([]);
  });
  test('a protected store that is not kept', () => {
    const table = { Type: 'AWS::DynamoDB::Table', Properties: { DeletionProtectionEnabled: true } };
    expect(run({ T: { ...table, DeletionPolicy: 'RetainExceptOnCreate' } })).toEqual(['T']);
    expect(run({ T: { ...table, DeletionPolicy: 'Retain' } })).toEqual([]);
  });
  test('a type no rule names', () => {
    expect(run({ Q: { Type: 'AWS::Kinesis::Stream', Properties: {} } })).toEqual(['Q']);
  });
});
