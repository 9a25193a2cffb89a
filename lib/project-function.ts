import { Duration, type RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import {
  LogLevel,
  NodejsFunction,
  OutputFormat,
  type BundlingOptions,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ACCESS_PARTITION_PREFIX } from '../core/access-state.ts';
import type { EntityDescriptor } from '../core/entities.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';
import { grantKeyThroughS3 } from './keys.ts';
import { AUDIT_RETENTION, removalPolicyFor } from './retention.ts';

/**
 * The Node.js built-ins the bundles import, each through its stand-in in functions/sdk/builtins/
 * (functions/sdk/builtins/fs-promises.ts stands in for `node:fs/promises`). Why is in
 * functions/sdk/README.md.
 */
const BUILTINS = 'functions/sdk/builtins';
const builtinAliases = readdirSync(join(PROJECT_ROOT, BUILTINS))
  .sort()
  .map((file) => `node:${file.replace(/\.ts$/, '').replace('-', '/')}=./${BUILTINS}/${file}`);

export interface ProjectFunctionProps {
  /** Absolute path of the handler entry file; it exports `handler`. */
  readonly entry: string;
  /** Project root: esbuild resolves packages and package-lock.json from here. */
  readonly projectRoot: string;
  readonly environment: Record<string, string>;
  readonly description?: string;
  /**
   * @default five years (1,827 days): the log group holds the function's audit events (SPEC 8),
   * which must answer "who read this record?" years later.
   */
  readonly logRetention?: RetentionDays;
  /** @default a kept stage's (lib/retention.ts); DESTROY in a disposable stage (stage/stage.ts) */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** @default MEMORY_MB: the API's; the import's steps (lib/import-drop.ts) set their own */
  readonly memorySize?: number;
  /** @default TIMEOUT */
  readonly timeout?: Duration;
}

/**
 * How every function is bundled. Exported so that the benchmark (bench/) builds exactly the
 * bundle `cdk synth` builds, from the same options.
 */
export const BUNDLING: BundlingOptions = {
  // Local esbuild: no Docker on build machines, and the same bundle everywhere.
  forceDockerBundling: false,
  format: OutputFormat.ESM,
  target: 'node24',
  platform: 'node',
  minify: true,
  // No source map in the deployed bundle and no --enable-source-maps at run time: both cost init
  // time on every cold start. `npm run stack-trace` maps a logged stack trace to source lines
  // afterwards, from a map rebuilt from the same commit (docs/performance.md).
  sourceMap: false,
  // Prefer ES module builds of dependencies: better tree shaking of the AWS SDK.
  mainFields: ['module', 'main'],
  // Warnings and errors only: not a size line per function in every synth (and test run).
  logLevel: LogLevel.WARNING,
  // Bundle the AWS SDK too: a pinned, tested version instead of the one in the runtime.
  externalModules: [],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner:
    "import { createRequire } from 'node:module';const require = createRequire(import.meta.url);",
  esbuildArgs: {
    '--alias': [
      // Lambda hands a function its credentials in the environment: the SDK's default provider
      // chain (SSO, ini files, process, web identity, instance metadata) is a third of the
      // bundle that never runs there (functions/sdk/lambda-credentials.ts).
      '@aws-sdk/credential-provider-node=./functions/sdk/lambda-credentials.ts',
      // Built-ins without their ES module facades (functions/sdk/builtins/).
      ...builtinAliases,
    ],
    // A name a stand-in lacks fails the build instead of reading as undefined.
    '--log-override': 'import-is-undefined=error',
  },
};

/**
 * One of the project's Lambda functions, an API route's (lib/api.ts) or an import step's
 * (lib/import-drop.ts), with the project's defaults in one place: every function runs on the same
 * runtime, bundling and limits, and gets its own role and log group (least privilege, no shared
 * blast radius).
 *
 * Memory and timeout, chosen on purpose for the API's functions (an import step sets its own):
 * - 512 MB. Lambda allots CPU in proportion to memory; cold starts (parsing the bundled AWS SDK)
 *   and request signing are CPU-bound, and at 512 MB a cold start is markedly shorter than at
 *   128-256 MB while a warm read's cost stays negligible (docs/operations/costs.md).
 * - 10 s timeout. The handlers give DynamoDB at most 3 attempts of ~1 s each plus back-off (about
 *   3.5 s worst case) and then answer 503; 10 s leaves room for a cold start and presigning, so a
 *   slow DynamoDB ends in the handler's own 503 rather than a Lambda timeout. It stays well
 *   under the HTTP API's 30 s integration limit.
 */
export class ProjectFunction extends NodejsFunction {
  static readonly MEMORY_MB = 512;
  static readonly TIMEOUT = Duration.seconds(10);
  /** Node.js 24, the version the project pins for local runs and tests (package.json `node`). */
  static readonly RUNTIME = Runtime.NODEJS_24_X;

  constructor(scope: Construct, id: string, props: ProjectFunctionProps) {
    // The role and log group are the function's siblings: they must exist before the function
    // so that CDK creates neither a shared default role with a managed policy nor a log group
    // without retention.
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${id} function only`,
    });
    const logGroup = new LogGroup(scope, `${id}LogGroup`, {
      retention: props.logRetention ?? AUDIT_RETENTION,
      removalPolicy: props.logRemovalPolicy ?? removalPolicyFor(false),
    });

    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      description: props.description,
      runtime: ProjectFunction.RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? ProjectFunction.MEMORY_MB,
      timeout: props.timeout ?? ProjectFunction.TIMEOUT,
      role,
      logGroup,
      // Lambda writes its own lines (START, REPORT with the init duration of a cold start, a
      // crash or a timeout) as JSON with the Lambda request id, and drops application lines
      // below INFO; the functions' own lines carry both request ids (functions/shared/logger.ts).
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.INFO,
      // X-Ray: a trace per invocation with Lambda's segments only (init, invocation, overhead).
      // HTTP APIs send no traces and nothing instruments the SDK: no API Gateway segment, no
      // DynamoDB subsegment (docs/operations.md, "Following a request").
      tracing: Tracing.ACTIVE,
      environment: props.environment,
      bundling: BUNDLING,
    });

    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords on "*": X-Ray ' +
        'defines no resource types for these actions, so they cannot be scoped to an ARN.',
    });
  }

  /**
   * Lets the function read the table the way the handlers do: GetItem of its own entity's records
   * and of the callers' access-state items, nothing else (no Query of the table, Scan, batch reads or
   * writes), so that the transactions' function cannot read a customer. The Null condition closes
   * the ForAllValues gap, as in grantAccessStateWrite.
   */
  grantTableRead(table: ITable, entity: EntityDescriptor): void {
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem'],
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': [`${entity.keys.partition}*`, `${ACCESS_PARTITION_PREFIX}*`],
          },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    );
  }

  /**
   * Lets the function Query these indexes of the table (SPEC 10) and nothing else through them:
   * each function only the indexes of its own routes, so that the transaction function cannot
   * find a customer and the customer function reaches transaction summaries only through a
   * customer's transactions. No `dynamodb:LeadingKeys` condition: every partition of these
   * indexes (any receipt, any customer) is one its route may read, and AWS does not document
   * which key the condition reads on an index (docs/security.md).
   */
  grantIndexQuery(table: ITable, indexNames: readonly string[]): void {
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: indexNames.map((name) => `${table.tableArn}/index/${name}`),
      }),
    );
  }

  /**
   * Lets the function write the callers' access-state items (core/access-state.ts: read counters,
   * SPEC 8) and nothing else in the table: UpdateItem only, and only on items whose partition key
   * starts with `USER#`, so that a function bug or a stolen function role cannot change a record
   * (docs/security.md says why a key condition rather than a second table). The Null condition
   * closes the ForAllValues gap: a request without a key would otherwise match vacuously.
   */
  grantAccessStateWrite(table: ITable): void {
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ACCESS_PARTITION_PREFIX}*`] },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    );
  }

  /**
   * Lets the function presign GETs of files under the given key prefixes, and nothing else in the
   * bucket: a presigned URL carries the signer's permissions, so the role bounds what any URL
   * handed out by the API can fetch.
   */
  grantFileRead(bucket: IBucket, prefixes: readonly string[]): void {
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
      }),
    );
    // The bucket's key decrypts for the URL's GET only through S3, for this bucket.
    grantKeyThroughS3(this, bucket, ['kms:Decrypt']);
    const bucketLogicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
    for (const prefix of prefixes) {
      Validations.of(this.role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${prefix}*]`,
        reason:
          `s3:GetObject is scoped to the ${prefix} key prefix of the files bucket: the function ` +
          'presigns URLs for object keys read from the table, which are not known at deploy ' +
          'time, and an object ARN can only be narrowed by a key pattern.',
      });
    }
  }
}
