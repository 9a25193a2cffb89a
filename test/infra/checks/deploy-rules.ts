/**
 * The rehearsal of a first `cdk deploy` that needs no account: AWS's rules that neither cfn-lint
 * nor cdk-nag knows (CloudFormation's resource handlers, S3, IAM, Step Functions), held on the
 * synthesized stages. Each rule names the AWS page or public issue it comes from, so that the
 * next review's findings become rules beside these.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { ENTITIES, filePrefixesOf } from '../../../core/entities.ts';
import { EXPIRES_AT } from '../../../core/layout.ts';
import { AUDIT_RETENTION_DAYS } from '../../../core/retention.ts';
import { functionList } from '../../../core/routes.ts';
import { makeStage } from '../../../stage/stage.ts';
import { PROTECTED, writersOf } from './rollback.ts';
import {
  definitionOf,
  THREE_STAGES,
  resourcesOf,
  synthesize,
  type CfnTemplate,
  type Json,
  type Synthesized,
} from '../synth.ts';

const synths = new Map<string, Synthesized>();
beforeAll(() => {
  for (const [name, context] of THREE_STAGES) synths.set(name, synthesize({ context }));
}, 180_000);

const json = (stage: string): CfnTemplate => synths.get(stage)!.json;
const kept = THREE_STAGES.filter(([name]) => name !== 'a disposable stage').map(([name]) => name);
const all = THREE_STAGES.map(([name]) => name);
const list = <T>(x: T | T[] | undefined): T[] =>
  x === undefined ? [] : Array.isArray(x) ? x : [x];

/**
 * S3 lifecycle rules.
 * - CloudFormation's S3 handler refuses a rule without one of these actions ("At least one of
 *   [...] needs to be specified"), even one that only removes expired delete markers, which S3
 *   itself accepts: aws-cloudformation/cloudformation-coverage-roadmap issue 1124 (open; confirmed
 *   by AWS Support there).
 * - S3 refuses ExpiredObjectDeleteMarker beside Days or Date in the same expiration (Amazon S3 API
 *   Reference, LifecycleExpiration) and beside a tag filter (Amazon S3 User Guide, "Removing
 *   expired object delete markers").
 */
const CFN_LIFECYCLE_ACTIONS = [
  'AbortIncompleteMultipartUpload',
  'ExpirationDate',
  'ExpirationInDays',
  'NoncurrentVersionExpiration',
  'NoncurrentVersionExpirationInDays',
  'NoncurrentVersionTransition',
  'NoncurrentVersionTransitions',
  'Transition',
  'Transitions',
];

/**
 * The table's TTL (tombstones' expiry, core/import-version.ts). DynamoDB keeps TTL on one attribute
 * and takes one UpdateTimeToLive a table an hour, so a deploy that renames the attribute rolls back
 * ("TimeToLive is active on a different AttributeName"; aws/aws-cdk issue 13106), and one that
 * drops TimeToLiveSpecification is refused by the handler ("AttributeName property of
 * TimeToLiveSpecification is required when TTL status is enabled or while enabling/disabling
 * TTL"; aws/aws-cdk issue 25655). The attribute is therefore fixed, and in every stage.
 */
test.each(all)('%s: TTL on the fixed attribute expiresAt, enabled', (stage) => {
  const tables = resourcesOf(json(stage), 'AWS::DynamoDB::Table');
  expect(tables).toHaveLength(1);
  expect(tables[0]![1].Properties!.TimeToLiveSpecification).toEqual({
    AttributeName: 'expiresAt',
    Enabled: true,
  });
  expect(EXPIRES_AT).toBe('expiresAt');
});

describe.each(all)('%s: lifecycle rules CloudFormation and S3 both accept', (stage) => {
  const rules = () =>
    resourcesOf(json(stage), 'AWS::S3::Bucket').flatMap(([id, bucket]) =>
      list<Json>(bucket.Properties!.LifecycleConfiguration?.Rules).map((rule) => [id, rule]),
    );

  test('every rule holds an action the CloudFormation handler counts', () => {
    expect(rules().length).toBeGreaterThan(0);
    for (const [id, rule] of rules())
      expect([id, rule.Id, CFN_LIFECYCLE_ACTIONS.some((a) => a in rule)]).toEqual([
        id,
        rule.Id,
        true,
      ]);
  });

  test('expired delete markers go only in a rule that expires noncurrent versions', () => {
    for (const [id, rule] of rules().filter(([, r]) => r.ExpiredObjectDeleteMarker)) {
      expect([id, 'NoncurrentVersionExpiration' in rule]).toEqual([id, true]);
      for (const refused of ['ExpirationInDays', 'ExpirationDate', 'TagFilters'])
        expect([id, refused, refused in rule]).toEqual([id, refused, false]);
    }
  });

  test('every versioned bucket still removes its expired delete markers', () => {
    for (const [id, bucket] of resourcesOf(json(stage), 'AWS::S3::Bucket')) {
      if (bucket.Properties!.VersioningConfiguration?.Status !== 'Enabled') continue;
      const rules = list<Json>(bucket.Properties!.LifecycleConfiguration?.Rules);
      expect([id, rules.some((r) => r.ExpiredObjectDeleteMarker === true)]).toEqual([id, true]);
    }
  });
});

/**
 * What a kept stage keeps of a rolled-back first deploy. The rehearsal of every step
 * (./rollback.ts) shows what it must keep; keeping more would leave more behind each failed
 * attempt. RetainExceptOnCreate deletes a resource when the create that made it rolls back, and
 * keeps it on a stack delete (AWS CloudFormation User Guide, "DeletionPolicy attribute").
 */
describe.each(kept)('%s: a failed first deploy can simply be run again', (stage) => {
  const withPolicy = () =>
    Object.entries(json(stage).Resources).filter(([, r]) => r.DeletionPolicy !== undefined);

  test('plain Retain only for what a rollback cannot delete: protected, or written by log delivery', () => {
    const retained = withPolicy().filter(([, r]) => r.DeletionPolicy === 'Retain');
    expect(new Set(retained.map(([, r]) => r.Type))).toEqual(
      new Set([
        'AWS::DynamoDB::Table',
        'AWS::Cognito::UserPool',
        'AWS::Logs::LogGroup',
        'AWS::S3::Bucket',
        'AWS::S3::BucketPolicy',
      ]),
    );
    for (const [id, r] of retained.filter(([, r]) => r.Type !== 'AWS::S3::BucketPolicy')) {
      const cannot =
        (PROTECTED[r.Type]?.(r) ?? false) || writersOf(json(stage), id).some((w) => w.late);
      expect([id, r.Type, cannot]).toEqual([id, r.Type, true]);
    }
  });

  test('everything else kept goes when its create rolls back, and survives a replacement', () => {
    for (const [id, r] of withPolicy()) {
      expect([id, ['Retain', 'RetainExceptOnCreate', 'Delete']]).toEqual([
        id,
        expect.arrayContaining([r.DeletionPolicy]),
      ]);
      if (r.DeletionPolicy !== 'Delete')
        expect([id, r.UpdateReplacePolicy]).toEqual([id, 'Retain']);
    }
  });

  /**
   * A kept stage destroyed and deployed again under its name: what `cdk destroy` keeps (SPEC 8's
   * logs and audit, the data) must not hold a name the next create needs. CloudFormation
   * creates a log group by its name and fails with "already exists" when a kept one holds it
   * (CloudWatch Logs API Reference, CreateLogGroup: ResourceAlreadyExistsException). A name
   * carrying the stack's id (new with each create: AWS CloudFormation User Guide, pseudo
   * parameters, AWS::StackId) differs each time.
   */
  test('nothing kept on a destroy holds a name the next create of the stage needs', () => {
    for (const [id, r] of withPolicy().filter(([, r]) => r.DeletionPolicy !== 'Delete'))
      for (const [property, value] of Object.entries(r.Properties ?? {}))
        if (/Name$/.test(property) && typeof value !== 'object')
          expect([id, property, value]).toEqual([id, property, 'not a fixed string']);
    for (const [id, r] of resourcesOf(json(stage), 'AWS::Logs::LogGroup')) {
      const name = r.Properties!.LogGroupName;
      if (name !== undefined)
        expect([id, JSON.stringify(name)]).toEqual([
          id,
          expect.stringContaining('{"Ref":"AWS::StackId"}'),
        ]);
    }
  });
});

/**
 * Log delivery (API Gateway's access logs, Step Functions' execution logs) writes to a group
 * under /aws/vendedlogs/ without an entry in the account's one log-delivery resource policy;
 * any other group is added to that policy, which holds 5,120 characters and is never shrunk, so
 * that a few dozen stages (rolled-back attempts included) make every next one fail with "Policy
 * document length breaking Cloudwatch Logs Constraints" (Amazon CloudWatch Logs User Guide,
 * "Enabling logging from AWS services", logs sent to CloudWatch Logs; Step Functions Developer
 * Guide, "Logging using CloudWatch Logs").
 */
test.each(all)(
  '%s: every log group written through log delivery is under /aws/vendedlogs/',
  (stage) => {
    const t = json(stage);
    const destinations = [
      ...resourcesOf(t, 'AWS::ApiGatewayV2::Stage').map(
        ([, r]) => r.Properties!.AccessLogSettings.DestinationArn,
      ),
      ...resourcesOf(t, 'AWS::StepFunctions::StateMachine').flatMap(([, r]) =>
        list<Json>(r.Properties!.LoggingConfiguration?.Destinations).map(
          (d) => d.CloudWatchLogsLogGroup.LogGroupArn,
        ),
      ),
    ];
    expect(destinations).toHaveLength(2);
    for (const arn of destinations) {
      const groupId = arn['Fn::GetAtt'][0] as string;
      const name = t.Resources[groupId]!.Properties!.LogGroupName;
      expect([groupId, name['Fn::Join'][1][0]]).toEqual([
        groupId,
        expect.stringMatching(/^\/aws\/vendedlogs\/(apigateway|states)\//),
      ]);
    }
  },
);

/**
 * A bucket policy goes or stays with its bucket: CDK gives a bucket's policy no removal policy,
 * so a kept bucket would lose its TLS-only deny, and a log bucket the grant S3 needs to deliver
 * its logs, on `cdk destroy`.
 */
test.each(all)('%s: each bucket policy is kept as its bucket is', (stage) => {
  const t = json(stage);
  const policies = resourcesOf(t, 'AWS::S3::BucketPolicy');
  expect(policies.length).toBe(resourcesOf(t, 'AWS::S3::Bucket').length);
  for (const [id, p] of policies) {
    const bucket = t.Resources[p.Properties!.Bucket.Ref as string]!;
    expect([id, p.DeletionPolicy, p.UpdateReplacePolicy]).toEqual([
      id,
      bucket.DeletionPolicy,
      bucket.UpdateReplacePolicy,
    ]);
  }
});

/**
 * A function that names no log group gets /aws/lambda/<name> from Lambda at its first run:
 * outside the stack, kept forever, one more on every create attempt. CDK's own handlers (bucket
 * notifications, the bucket emptier) name none unless given one (lib/function-logs.ts).
 */
test.each(all)(
  '%s: every function logs to a group of the stack, kept as long as the trail',
  (stage) => {
    const t = json(stage);
    const functions = resourcesOf(t, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(8);
    for (const [id, fn] of functions) {
      const group = t.Resources[fn.Properties!.LoggingConfig?.LogGroup?.Ref as string];
      expect([id, group?.Type, group?.Properties!.RetentionInDays]).toEqual([
        id,
        'AWS::Logs::LogGroup',
        AUDIT_RETENTION_DAYS,
      ]);
    }
  },
);

/**
 * The audit trail (SPEC 8: the functions' audit events, the API's access log, the import
 * workflow's log) is deletion-protected in a kept stage (docs/decisions/0032), and kept even by a
 * rolled-back create (the service would refuse the delete); nothing else is, so a failed create
 * leaves no more behind. A disposable stage protects nothing.
 */
test.each(all)("%s: only the audit trail's log groups are deletion-protected", (stage) => {
  const s = synths.get(stage)!;
  const trail = [
    ...[...s.stack.api.functions.values(), ...s.stack.importDrop.functions.values()].map(
      (fn) => fn.logGroup,
    ),
    s.stack.api.accessLogGroup,
    s.stack.importDrop.workflowLogGroup,
  ].map((group) => s.logicalId(group.node.defaultChild as never));
  expect(trail).toHaveLength(s.stack.api.functions.size + s.stack.importDrop.functions.size + 2);
  const disposable = stage === 'a disposable stage';
  for (const [id, group] of resourcesOf(s.json, 'AWS::Logs::LogGroup')) {
    const protect = trail.includes(id) && !disposable;
    expect([
      id,
      group.Properties!.DeletionProtectionEnabled ?? false,
      group.DeletionPolicy,
    ]).toEqual([id, protect, protect ? 'Retain' : disposable ? 'Delete' : 'RetainExceptOnCreate']);
  }
});

test('a disposable stage keeps nothing', () => {
  for (const [id, r] of Object.entries(json('a disposable stage').Resources))
    expect([id, r.DeletionPolicy ?? 'Delete']).toEqual([id, 'Delete']);
});

/**
 * Names unique per account, across regions: the same stage in a second region of one account
 * fails unless the name carries the region.
 * - CloudFront is global: origin access controls, response headers policies, functions, cache
 *   and origin request policies are named per account (Amazon CloudFront API Reference:
 *   OriginAccessControlAlreadyExists, ResponseHeadersPolicyAlreadyExists, FunctionAlreadyExists).
 * - A CloudWatch dashboard's ARN has no region (arn:aws:cloudwatch::<account>:dashboard/<name>,
 *   Service Authorization Reference for CloudWatch).
 * - IAM names are global to the account (IAM User Guide, "IAM identifiers").
 * - An S3 bucket name is global to all of AWS: never set one, let CloudFormation generate it.
 */
const ACCOUNT_WIDE_NAMES: Record<string, (p: Json) => unknown> = {
  'AWS::CloudFront::OriginAccessControl': (p) => p.OriginAccessControlConfig?.Name,
  'AWS::CloudFront::ResponseHeadersPolicy': (p) => p.ResponseHeadersPolicyConfig?.Name,
  'AWS::CloudFront::Function': (p) => p.Name,
  'AWS::CloudFront::CachePolicy': (p) => p.CachePolicyConfig?.Name,
  'AWS::CloudFront::OriginRequestPolicy': (p) => p.OriginRequestPolicyConfig?.Name,
  'AWS::CloudWatch::Dashboard': (p) => p.DashboardName,
  'AWS::IAM::Role': (p) => p.RoleName,
  'AWS::IAM::ManagedPolicy': (p) => p.ManagedPolicyName,
};

describe.each(all)('%s: names unique per account carry the region', (stage) => {
  test('every name CloudFront, CloudWatch dashboards or IAM hold per account', () => {
    const named: string[] = [];
    for (const [type, nameOf] of Object.entries(ACCOUNT_WIDE_NAMES))
      for (const [id, r] of resourcesOf(json(stage), type)) {
        const name = nameOf(r.Properties ?? {});
        if (name === undefined) continue;
        named.push(type);
        expect([id, JSON.stringify(name)]).toEqual([
          id,
          expect.stringContaining('{"Ref":"AWS::Region"}'),
        ]);
      }
    expect([...new Set(named)].sort()).toEqual(
      expect.arrayContaining([
        'AWS::CloudFront::Function',
        'AWS::CloudFront::OriginAccessControl',
        'AWS::CloudFront::ResponseHeadersPolicy',
        'AWS::CloudWatch::Dashboard',
      ]),
    );
  });

  /**
   * An origin access control's name is at most 64 characters (Amazon CloudFront API Reference,
   * OriginAccessControlConfig): the stack name and the region, for the longest stage name the
   * stage rule allows (20 characters) and the longest region name (14, e.g. ap-southeast-7).
   */
  test("the origin access control's name fits CloudFront's 64 characters", () => {
    const [, oac] = resourcesOf(json(stage), 'AWS::CloudFront::OriginAccessControl')[0]!;
    const parts = oac.Properties!.OriginAccessControlConfig.Name['Fn::Join'][1] as Json[];
    expect(parts).toEqual([`${synths.get(stage)!.stack.stackName}-`, { Ref: 'AWS::Region' }]);
    const longest = makeStage({ name: `a${'-b'.repeat(9)}c` }).stackName;
    expect(`${longest}-ap-southeast-7`.length).toBeLessThanOrEqual(64);
  });

  test('no bucket has a fixed name', () => {
    for (const [id, r] of resourcesOf(json(stage), 'AWS::S3::Bucket'))
      expect([id, r.Properties!.BucketName]).toEqual([id, undefined]);
  });
});

/**
 * Each GET function may read only its own entity's files (SPEC 6): a presigned URL carries the
 * signer's permissions (Amazon S3 User Guide, "Sharing objects with presigned URLs"), so the
 * role is what bounds every link the API hands out.
 */
describe.each(all)("%s: each GET function's S3 reach", (stage) => {
  test.each(functionList.map((f) => [f.id, f.entity] as const))('%s', (routeId, entity) => {
    const s = synths.get(stage)!;
    const fn = s.stack.api.functions.get(routeId)!;
    const roleId = s.logicalId(fn.role as never);
    const bucketArn = { 'Fn::GetAtt': [s.logicalId(s.stack.data.bucket), 'Arn'] };
    const s3 = resourcesOf(s.json, 'AWS::IAM::Policy')
      .filter(([, p]) => list<Json>(p.Properties!.Roles).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => list<Json>(p.Properties!.PolicyDocument.Statement))
      .filter((st) => list<string>(st.Action).some((a) => a.startsWith('s3:')));
    const keysOf = (resources: Json[]) => resources.map((r) => JSON.stringify(r)).sort();
    expect(s3.map((st) => [st.Effect, st.Action, keysOf(list(st.Resource))])).toEqual([
      [
        'Allow',
        's3:GetObject',
        keysOf(
          filePrefixesOf(ENTITIES[entity]).map((prefix) => ({
            'Fn::Join': ['', [bucketArn, `/${prefix}*`]],
          })),
        ),
      ],
    ]);
    expect(filePrefixesOf(ENTITIES[entity])).toEqual(
      entity === 'transaction' ? ['signatures/', 'attachments/'] : ['id-photos/'],
    );
  });
});

/**
 * A service principal acts for every account that uses the service: a key policy that lets one
 * in must hold it to this account (IAM User Guide, "The confused deputy problem"; AWS KMS
 * Developer Guide, "Permissions for AWS services in key policies").
 *
 * One named exception: CloudWatch's statement on the alarm topic's key, exactly as AWS documents
 * it for alarms that publish to an encrypted topic, with no condition (AWS Knowledge Center, "How
 * do I configure a CloudWatch alarm with an encrypted Amazon SNS topic?"; Amazon SNS Developer
 * Guide, "Enable compatibility between event sources from AWS services and encrypted topics").
 * AWS documents no aws:SourceAccount or aws:SourceArn on that KMS request, and a condition the
 * request does not satisfy drops every alarm e-mail without an error anyone sees. The account is
 * held where AWS documents it: the topic's policy lets CloudWatch publish for this account's
 * alarms only, and the key encrypts that topic alone.
 */
const CLOUDWATCH_ALARMS_KEY_STATEMENT = {
  Sid: 'CloudWatchAlarmsEncrypt',
  Effect: 'Allow',
  Principal: { Service: 'cloudwatch.amazonaws.com' },
  Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
  Resource: '*',
};

describe.each(all)('%s: service principals in key policies are held to this account', (stage) => {
  test('every statement of a key policy naming a service has aws:SourceAccount or aws:SourceArn', () => {
    const statements = resourcesOf(json(stage), 'AWS::KMS::Key').flatMap(([id, key]) =>
      list<Json>(key.Properties!.KeyPolicy.Statement).map((st) => [id, st] as const),
    );
    const forServices = statements.filter(([, st]) => st.Principal?.Service !== undefined);
    expect(forServices.length).toBeGreaterThan(0);
    const sorted = (st: Json) => JSON.stringify(Object.entries(st as object).sort());
    const documented = (st: Json) => sorted(st) === sorted(CLOUDWATCH_ALARMS_KEY_STATEMENT);
    for (const [id, st] of forServices.filter(([, st]) => !documented(st))) {
      const keys = Object.values((st.Condition ?? {}) as Record<string, object>).flatMap((c) =>
        Object.keys(c),
      );
      expect([id, st.Sid, keys]).toEqual([
        id,
        st.Sid,
        expect.arrayContaining([expect.stringMatching(/^aws:Source(Account|Arn)$/)]),
      ]);
    }

    // The exception: once, on the key of the alarm topic, whose policy holds CloudWatch to this
    // account's alarms.
    const exceptions = forServices.filter(([, st]) => documented(st)).map(([id]) => id);
    const topics = resourcesOf(json(stage), 'AWS::SNS::Topic');
    const alarmTopic = topics.filter(
      ([, t]) =>
        JSON.stringify(t.Properties!.KmsMasterKeyId) ===
        JSON.stringify({ 'Fn::GetAtt': [exceptions[0], 'Arn'] }),
    );
    expect({
      'key statements exactly as AWS documents for CloudWatch alarms': exceptions.length,
      'topics encrypted with that key': alarmTopic.length,
    }).toEqual({
      'key statements exactly as AWS documents for CloudWatch alarms': 1,
      'topics encrypted with that key': 1,
    });
    const [topicId] = alarmTopic[0]!;
    const publishes = resourcesOf(json(stage), 'AWS::SNS::TopicPolicy')
      .filter(([, p]) => list<Json>(p.Properties!.Topics).some((t) => t?.Ref === topicId))
      .flatMap(([, p]) => list<Json>(p.Properties!.PolicyDocument.Statement))
      .filter(
        (st) => st.Effect === 'Allow' && st.Principal?.Service === 'cloudwatch.amazonaws.com',
      );
    expect(publishes).toEqual([
      expect.objectContaining({
        Action: 'sns:Publish',
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudwatch:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':alarm:*',
                ],
              ],
            },
          },
        },
      }),
    ]);
  });
});

/**
 * Every Task states its own TimeoutSeconds: without one the service lets a Task run 99,999,999 s,
 * up to the execution's own limit (AWS Step Functions Developer Guide, "Task workflow state"),
 * while an emulator's default decides it locally (aws-local-stepfunctions cuts it at 60 s).
 */
describe.each(all)('%s: the workflow', (stage) => {
  test('every Task, in every Map too, has a timeout', () => {
    const tasks: [string, Json][] = [];
    const walk = (states: Record<string, Json>) => {
      for (const [name, state] of Object.entries(states)) {
        if (state.Type === 'Task') tasks.push([name, state]);
        const inner = state.ItemProcessor ?? state.Iterator;
        if (inner) walk(inner.States as Record<string, Json>);
        for (const branch of list<Json>(state.Branches)) walk(branch.States);
      }
    };
    walk(definitionOf(json(stage)).States);
    expect(tasks.map(([name]) => name)).toContain('Alert');
    for (const [name, task] of tasks)
      expect([name, Number.isInteger(task.TimeoutSeconds) && task.TimeoutSeconds > 0]).toEqual([
        name,
        true,
      ]);
  });
});

/**
 * CloudFront's standard logging writes with an ACL grant: a distribution whose log bucket has ACLs
 * off (ObjectOwnership BucketOwnerEnforced, S3's default for new buckets since April 2023) fails to
 * create with "The S3 bucket that you specified for CloudFront logs does not enable ACL access"
 * (Amazon CloudFront Developer Guide, standard logging (legacy), bucket and file ownership;
 * aws-cdk#25291). The bucket needs no canned ACL: CloudFront adds its own grant.
 */
test.each(all)('%s: the bucket CloudFront logs to has ACLs on', (stage) => {
  const t = json(stage);
  const [, distribution] = resourcesOf(t, 'AWS::CloudFront::Distribution')[0]!;
  const logging: Json = distribution.Properties!.DistributionConfig.Logging;
  const bucketId = (logging['Fn::If']?.[1] ?? logging).Bucket['Fn::GetAtt'][0] as string;
  const bucket = t.Resources[bucketId]!.Properties!;
  expect(bucket.OwnershipControls.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerPreferred' }]);
  expect(bucket.AccessControl).toBeUndefined();
});

/**
 * DynamoDB creates or deletes one global secondary index per UpdateTable, and CloudFormation
 * refuses a stack update creating more than one ("Cannot perform more than one GSI creation or
 * deletion in a single update": DynamoDB's quotas page; aws/aws-cdk issues 12246 and 14920). A
 * new stage's table is created with every lookup index at once, which CreateTable allows; a stage
 * whose table lacks them could not be updated to them in one deploy, and the runbook says what
 * to do instead.
 */
test.each(all)("%s: the lookups' indexes are created with the table", (stage) => {
  const tables = resourcesOf(json(stage), 'AWS::DynamoDB::Table');
  const indexes = tables[0]![1].Properties!.GlobalSecondaryIndexes as Json[];
  // More than one: an update from a table without them would be refused.
  expect(indexes.length).toBeGreaterThan(1);
  const runbook = readFileSync(
    join(PROJECT_ROOT, 'docs/operations/loading-records.md'),
    'utf8',
  ).replace(/\s+/g, ' ');
  expect(runbook).toContain('### A table written before the lookups');
  expect(runbook).toContain(
    'Cannot perform more than one GSI creation or deletion in a single update',
  );
  expect(runbook).toContain('in the order they were first put');
});

/**
 * A deleted secret keeps its name for its recovery window (7 to 30 days, Secrets Manager's
 * DeleteSecret), so a secret with a fixed name would refuse the next create of a destroyed
 * stage; and a dynamic reference to it is resolved only when CloudFormation deploys (a value
 * changed by hand reaches the functions at the next deploy: docs/operations/cdk-nag.md).
 */
test.each(all)('%s: the cursor secret has no fixed name and goes with its stage', (stage) => {
  const secrets = resourcesOf(json(stage), 'AWS::SecretsManager::Secret');
  expect(secrets).toHaveLength(1);
  const [, secret] = secrets[0]!;
  expect([secret.Properties!.Name, secret.DeletionPolicy]).toEqual([undefined, 'Delete']);
});
