import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ENTITIES, filePrefixesOf } from '../core/entities.ts';
import { ProjectFunction } from './project-function.ts';
import { AUDIT_RETENTION, removalPolicyFor } from './retention.ts';
import { vendedLogGroup } from './vended-logs.ts';
import type { Route } from '../core/routes.ts';
import { INDEX_LIST } from '../core/lookups.ts';
import type { Settings } from '../stage/settings.ts';
import { apiFunctionEnv } from '../core/function-env.ts';

/**
 * Stage-wide request limits. The API serves a back office; these bound the cost and the load a
 * leaked token or a runaway script can put on DynamoDB, and stay far above human use.
 */
export const DEFAULT_THROTTLE: Required<ThrottleSettings> = { rateLimit: 50, burstLimit: 100 };

/**
 * One JSON object per request, for CloudWatch Logs Insights. `integrationRequestId` is the Lambda
 * request id, which the functions' own log lines carry. No header or body values are logged.
 */
export const ACCESS_LOG_FIELDS: Record<string, string> = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationRequestId: '$context.integration.requestId',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  userSub: '$context.authorizer.claims.sub',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
};

export interface ApiProps {
  readonly routes: readonly Route[];
  /** Browser origins of the stage's own pages (the staff page), allowed by CORS beside the settings' ones. */
  readonly pageOrigins: readonly string[];
  readonly projectRoot: string;
  readonly table: ITable;
  readonly bucket: IBucket;
  readonly userPool: IUserPool;
  readonly userPoolClient: IUserPoolClient;
  readonly settings: Settings;
  readonly throttle?: Required<ThrottleSettings>;
  readonly logRetention?: RetentionDays;
  /** @default a kept stage's (lib/retention.ts); DESTROY in a disposable stage (stage/stage.ts) */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The HTTP API: one route and one function per entry of the shared route table, every route
 * behind a JWT authorizer that accepts only this user pool's tokens issued to this app client.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogGroup: LogGroup;
  readonly functions: ReadonlyMap<string, ProjectFunction>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { settings } = props;

    const authorizer = new HttpUserPoolAuthorizer('CognitoAuthorizer', props.userPool, {
      userPoolClients: [props.userPoolClient],
      // The handlers then insist on an access token and, for customers, on the group claim.
      identitySource: ['$request.header.Authorization'],
    });

    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: `${Stack.of(this).stackName} read API`,
      // Every route, including any added later, requires a valid token unless it opts out.
      defaultAuthorizer: authorizer,
      // The default stage is created below with throttling and access logs.
      createDefaultStage: false,
      // The stage's staff page, and the origins the settings name. Retry-After is exposed: a
      // page says when to try again after a 429 or 503.
      corsPreflight: {
        allowOrigins: [...props.pageOrigins, ...settings.corsAllowOrigins],
        allowMethods: [CorsHttpMethod.GET],
        allowHeaders: ['authorization'],
        exposeHeaders: ['retry-after'],
        maxAge: Duration.hours(1),
      },
    });

    // As long as the audit trail (SPEC 8): requests the authorizer refused are audited only here.
    this.accessLogGroup = vendedLogGroup(this, 'AccessLogs', {
      service: 'apigateway',
      retention: props.logRetention ?? AUDIT_RETENTION,
      removalPolicy: props.logRemovalPolicy ?? removalPolicyFor(false),
    });
    const throttle = props.throttle ?? DEFAULT_THROTTLE;
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle,
      // Per-route metrics (ApiId, Stage, Method, Resource) for the route alarms and dashboard.
      detailedMetricsEnabled: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    const environment = apiFunctionEnv(settings, {
      tableName: props.table.tableName,
      bucketName: props.bucket.bucketName,
      // SPEC 10: cursors are sealed with the stage's own secret; the template holds only a
      // reference that CloudFormation resolves when it deploys.
      cursorKey: this.cursorKey().secretValue.unsafeUnwrap(),
    });
    const functions = new Map<string, ProjectFunction>();
    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const spec of new Set(props.routes.map((route) => route.function))) {
      const served = props.routes.filter((route) => route.function === spec);
      const fn = new ProjectFunction(this, spec.id, {
        entry: `${props.projectRoot}/${spec.entry}`,
        projectRoot: props.projectRoot,
        environment,
        description: served.map((route) => `${route.method} ${route.path}`).join(', '),
        logRetention: props.logRetention,
        logRemovalPolicy: props.logRemovalPolicy,
      });
      const entity = ENTITIES[spec.entity];
      fn.grantTableRead(props.table, entity);
      fn.grantIndexQuery(
        props.table,
        INDEX_LIST.filter((index) => index.queriedBy === spec.entity).map((index) => index.name),
      );
      fn.grantAccessStateWrite(props.table);
      fn.grantFileRead(props.bucket, filePrefixesOf(entity));
      functions.set(spec.id, fn);
      integrations.set(spec.id, new HttpLambdaIntegration(`${spec.id}Integration`, fn));
    }
    for (const route of props.routes) {
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrations.get(route.function.id)!,
        authorizer,
      });
    }
    this.functions = functions;
  }

  /**
   * The secret lookup cursors are sealed with (SPEC 10): generated by Secrets Manager, so that no
   * template, diff or repository holds it; a new value voids the cursors in flight (each lives
   * 24 hours at most) and nothing else, so a lost secret is no loss.
   */
  private cursorKey(): Secret {
    const secret = new Secret(this, 'CursorKey', {
      description: `${Stack.of(this).stackName}: seals the API's lookup cursors`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The cursor secret is read when CloudFormation deploys the functions, not at run time: ' +
        'a rotation would not reach them until the next deploy. Changing it voids only cursors ' +
        'in flight (24 hours at most), so a deploy that rotates it by hand is enough (docs/security.md).',
    });
    return secret;
  }

  /** The stage's invoke URL, e.g. https://abc123.execute-api.eu-west-1.amazonaws.com/ */
  get url(): string {
    return this.stage.url;
  }
}
