/**
 * The route functions: runtime, architecture, bundle, limits, environment, logs and, above all,
 * what their roles may do. This file synthesizes with bundling to inspect the real bundles.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { ApiFunction, BUNDLING } from '../../../lib/api-function.ts';
import { esbuildOptions } from '../../../lib/esbuild-options.ts';
import { functionList } from '../../../core/routes.ts';
import { INDEX_LIST } from '../../../core/lookups.ts';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import {
  resourcesOf,
  resourcesUnder,
  synthesize,
  type CfnResource,
  type Json,
  type Synthesized,
} from '../synth.ts';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: true });
}, 120_000);

function functionsByRoute(): [string, string, CfnResource][] {
  return functionList.map((spec) => {
    const id = s.logicalId(s.stack.api.functions.get(spec.id)!);
    return [spec.id, id, s.json.Resources[id]!];
  });
}

/** The statements of every IAM policy attached to a role, by role logical id. */
function statementsOf(roleId: string): Json[] {
  return resourcesOf(s.json, 'AWS::IAM::Policy')
    .filter(([, p]) =>
      (p.Properties!.Roles as Json[]).some(
        (r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId }),
      ),
    )
    .flatMap(([, p]) => p.Properties!.PolicyDocument.Statement as Json[]);
}

const list = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

test('there is one function per entity, on nodejs24.x and arm64', () => {
  expect(resourcesUnder(s.json, 'AWS::Lambda::Function', 'Api')).toHaveLength(functionList.length);
  for (const [, , fn] of functionsByRoute()) {
    expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'] });
  }
});

test('memory and timeout are the documented choices; the timeout outlasts the DynamoDB retries', () => {
  // The handlers' DynamoDB client: 3 attempts of at most ~1 s each (functions/sdk/table-client.ts).
  const worstDynamoDbSeconds = 3 * 1 + 1; // plus back-off between attempts
  for (const [, , fn] of functionsByRoute()) {
    expect(fn.Properties).toMatchObject({ MemorySize: 512, Timeout: 10 });
    expect(fn.Properties!.Timeout).toBeGreaterThan(worstDynamoDbSeconds);
    expect(fn.Properties!.Timeout).toBeLessThan(30); // HTTP API integration limit
  }
  expect(ApiFunction.MEMORY_MB).toBe(512);
  expect(ApiFunction.TIMEOUT.toSeconds()).toBe(10);
});

test('the environment names the table and bucket, the URL TTL, the time zone and the read budgets; no NODE_OPTIONS', () => {
  for (const [, , fn] of functionsByRoute()) {
    expect(fn.Properties!.Environment.Variables).toEqual({
      TABLE_NAME: { Ref: s.logicalId(s.stack.data.table) },
      BUCKET_NAME: { Ref: s.logicalId(s.stack.data.bucket) },
      SIGNATURE_URL_TTL_SECONDS: '300',
      DISPLAY_TIME_ZONE: 'Asia/Manila',
      READ_BUDGET_CUSTOMERS: '60',
      READ_BUDGET_TRANSACTIONS: '300',
      READ_BUDGET_WINDOW_SECONDS: '300',
    });
  }
});

describe('bundles', () => {
  function bundleDir(fn: CfnResource): string {
    const key = fn.Properties!.Code.S3Key as string;
    return join(s.outdir, `asset.${key.replace(/\.zip$/, '')}`);
  }

  test('each bundle is a minified ES module with the AWS SDK inside and no source map', async () => {
    for (const [routeId, , fn] of functionsByRoute()) {
      expect(fn.Properties!.Handler).toBe('index.handler');
      const dir = bundleDir(fn);
      // No map deployed: `npm run stack-trace` rebuilds it (docs/operations/alarms.md).
      expect(readdirSync(dir)).toEqual(['index.mjs']);
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      // ESM: an export statement, and the createRequire banner for CommonJS dependencies.
      expect(code).toMatch(
        /export\s*\{[^}]*\bas handler\b[^}]*\}|export\s*\{\s*\w+ as handler\s*\}/,
      );
      expect(code.startsWith("import { createRequire } from 'node:module';")).toBe(true);
      expect(code).not.toMatch(/\bmodule\.exports\s*=\s*__toCommonJS/);
      // Minified: few, very long lines (the rest are inside template literals).
      const lines = code.split('\n');
      expect(lines.length).toBeLessThan(200);
      expect(code.length / lines.length).toBeGreaterThan(2000);
      expect(code).not.toMatch(/\n {2,}(const|let|return|if) /);
      expect(code).not.toContain('sourceMappingURL');
      // The AWS SDK is bundled, not imported from the runtime.
      expect(code).not.toMatch(/from\s*"@aws-sdk\//);
      expect(code).toContain('"@aws-sdk/client-dynamodb"');
      // Byte for byte what the benchmark, the bundle tests and `npm run stack-trace` build from
      // BUNDLING (lib/esbuild-options.ts), so what they measure and map is what is deployed.
      const route = functionList.find((fn) => fn.id === routeId)!;
      const rebuilt = await build({
        ...esbuildOptions(BUNDLING),
        entryPoints: [route.entry],
        outfile: join(s.outdir, 'rebuilt', routeId, 'index.mjs'),
        write: false,
      });
      expect(rebuilt.outputFiles[0]!.text).toBe(code);
    }
  });

  test('each bundle loads as an ES module on its own, with no node_modules, and exports a handler', () => {
    for (const [, , fn] of functionsByRoute()) {
      const file = join(bundleDir(fn), 'index.mjs');
      // No node_modules above the bundle: every import it makes at load time is inside it.
      for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
        expect(existsSync(join(dir, 'node_modules'))).toBe(false);
      }
      const result = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(file)}); console.log(typeof m.handler);`,
        ],
        {
          encoding: 'utf8',
          timeout: 30_000,
          env: {
            PATH: process.env.PATH,
            TABLE_NAME: 'table',
            BUCKET_NAME: 'bucket',
            AWS_REGION: 'eu-west-1',
            AWS_ACCESS_KEY_ID: 'test',
            AWS_SECRET_ACCESS_KEY: 'test',
          },
        },
      );
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('function');
    }
  });
});

test('each function has its own role, assumable by Lambda only, with no managed policies', () => {
  const roleIds = functionsByRoute().map(
    ([, , fn]) => fn.Properties!.Role['Fn::GetAtt'][0] as string,
  );
  expect(new Set(roleIds).size).toBe(functionList.length);
  expect(resourcesUnder(s.json, 'AWS::IAM::Role', 'Api')).toHaveLength(functionList.length);
  for (const roleId of roleIds) {
    const role = s.json.Resources[roleId]!;
    expect(role.Type).toBe('AWS::IAM::Role');
    expect(role.Properties!.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'lambda.amazonaws.com' },
      },
    ]);
    expect(role.Properties!.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties!.Policies).toBeUndefined();
  }
});

test("functions may only GetItem their entity's records and access state, Query their routes' indexes, UpdateItem access-state items, GetObject their entity's files and decrypt them through S3, write their own logs and send traces", () => {
  const tableArn = { 'Fn::GetAtt': [s.logicalId(s.stack.data.table), 'Arn'] };
  const keyArn = { 'Fn::GetAtt': [s.logicalId(s.stack.data.filesKey), 'Arn'] };
  for (const [specId, , fn] of functionsByRoute()) {
    const spec = functionList.find((f) => f.id === specId)!;
    const roleId = fn.Properties!.Role['Fn::GetAtt'][0] as string;
    const logGroupArn = { 'Fn::GetAtt': [fn.Properties!.LoggingConfig.LogGroup.Ref, 'Arn'] };
    const statements = statementsOf(roleId);
    const granted: Record<string, Json[]> = {};
    for (const st of statements) {
      expect(st.Effect).toBe('Allow');
      expect(st.NotAction).toBeUndefined();
      expect(st.NotResource).toBeUndefined();
      // The conditional grants: reads of the entity's records and access state, writes of
      // access-state items only (test/infra/checks/audit.ts).
      if (st.Action === 'dynamodb:UpdateItem' || st.Action === 'dynamodb:GetItem') {
        expect(Object.keys(st.Condition).sort()).toEqual(['ForAllValues:StringLike', 'Null']);
      } else if (st.Action === 'kms:Decrypt') {
        // The files bucket's key, only as S3 uses it for that bucket: no direct decrypt.
        expect(st.Condition).toEqual({
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
            },
            'kms:EncryptionContext:aws:s3:arn': {
              'Fn::GetAtt': [s.logicalId(s.stack.data.bucket), 'Arn'],
            },
          },
        });
      } else {
        expect(st.Condition).toBeUndefined();
      }
      for (const action of list<string>(st.Action)) {
        expect(action).not.toContain('*');
        (granted[action] ??= []).push(...list(st.Resource));
      }
    }
    // X-Ray's two write actions have no resource type: "*" is the only way to grant them.
    const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
    for (const [action, resources] of Object.entries(granted)) {
      if (XRAY.includes(action)) expect(resources).toEqual(['*']);
      else expect(resources).not.toContain('*');
    }
    expect(Object.keys(granted).sort()).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'kms:Decrypt',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:GetObject',
        ...XRAY,
      ].sort(),
    );
    expect(granted['dynamodb:GetItem']).toEqual([tableArn]);
    expect(granted['dynamodb:UpdateItem']).toEqual([tableArn]);
    // Only the indexes of its own routes (core/lookups.ts queriedBy), never the table itself.
    expect(granted['dynamodb:Query']).toEqual(
      INDEX_LIST.filter((index) => index.queriedBy === spec.entity).map((index) => ({
        'Fn::Join': ['', [tableArn, `/index/${index.name}`]],
      })),
    );
    expect(granted['kms:Decrypt']).toEqual([keyArn]);
    // Which keys: test/infra/checks/deploy-rules.ts, "each GET function's S3 reach".
    expect(granted['s3:GetObject']!.length).toBeGreaterThan(0);
    expect(granted['logs:CreateLogStream']).toEqual([logGroupArn]);
    expect(granted['logs:PutLogEvents']).toEqual([logGroupArn]);
  }
});

test('the DynamoDB actions granted are exactly the ones the handlers send', () => {
  const sources: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) sources.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(PROJECT_ROOT, 'functions'));
  const actionOf: Record<string, string> = {
    Query: 'dynamodb:Query',
    Get: 'dynamodb:GetItem',
    GetItem: 'dynamodb:GetItem',
    BatchGet: 'dynamodb:BatchGetItem',
    BatchGetItem: 'dynamodb:BatchGetItem',
    Scan: 'dynamodb:Scan',
    TransactGet: 'dynamodb:TransactGetItems',
    TransactGetItems: 'dynamodb:TransactGetItems',
    Update: 'dynamodb:UpdateItem',
    UpdateItem: 'dynamodb:UpdateItem',
  };
  const used = new Set<string>();
  for (const source of sources) {
    for (const [, name] of source.matchAll(/new\s+(\w+?)(?:Item)?Command\s*\(/g)) {
      const action = actionOf[name!] ?? actionOf[`${name}Item`];
      if (action) used.add(action);
      else if (!/^(GetObject|PutObject)$/.test(name!)) throw new Error(`unmapped command ${name}`);
    }
  }
  expect(used.size).toBeGreaterThan(0);
  for (const [, , fn] of functionsByRoute()) {
    const roleId = fn.Properties!.Role['Fn::GetAtt'][0] as string;
    const granted = statementsOf(roleId)
      .flatMap((st) => list<string>(st.Action))
      .filter((a) => a.startsWith('dynamodb:'));
    expect(granted.sort()).toEqual([...used].sort());
  }
});

test('each function logs to its own log group, and every log group keeps the audit trail 1,827 days', () => {
  const logGroupIds = functionsByRoute().map(
    ([, , fn]) => fn.Properties!.LoggingConfig.LogGroup.Ref as string,
  );
  expect(new Set(logGroupIds).size).toBe(functionList.length);
  for (const id of logGroupIds) expect(s.json.Resources[id]!.Type).toBe('AWS::Logs::LogGroup');
  const logGroups = resourcesOf(s.json, 'AWS::Logs::LogGroup');
  // + the API's access logs; the import drop's: its five steps and its workflow; the staff
  // page's deployment handler
  expect(resourcesUnder(s.json, 'AWS::Logs::LogGroup', 'Api')).toHaveLength(
    functionList.length + 1,
  );
  expect(resourcesUnder(s.json, 'AWS::Logs::LogGroup', 'Import')).toHaveLength(5 + 1);
  expect(resourcesUnder(s.json, 'AWS::Logs::LogGroup', 'StaffApp')).toHaveLength(1);
  expect(logGroups).toHaveLength(functionList.length + 1 + 5 + 1 + 1);
  for (const [, group] of logGroups) {
    expect(group.Properties!.RetentionInDays).toBe(1827);
  }
});
