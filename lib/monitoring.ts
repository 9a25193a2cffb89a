import { Aws, Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import {
  DashboardRenderingPreference,
  DefaultDashboardFactory,
  LatencyType,
  MonitoringFacade,
  SnsAlarmActionStrategy,
} from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { stageKey } from './keys.ts';
import { ProjectFunction } from './project-function.ts';
import type { Route } from '../core/routes.ts';
import { INDEX_LIST } from '../core/lookups.ts';

/**
 * The DynamoDB operations this stack performs on its table: the functions get records
 * (functions/shared/store.ts) and get and update the caller's access state
 * (functions/shared/access.ts); the import updates records whole (import/writer.ts).
 */
export const TABLE_OPERATIONS = ['GetItem', 'Query', 'UpdateItem'] as const;

/**
 * What an X-Ray trace holds, for the alarm descriptions that point to traces: HTTP APIs send no
 * traces to X-Ray and nothing in the bundles instruments the AWS SDK.
 */
export const TRACES =
  "X-Ray traces hold Lambda's segments only (initialization, invocation, overhead): they tell " +
  'a cold start from a slow invocation, but show no API Gateway segment and no DynamoDB call.';

/**
 * Alarm thresholds (SPEC 7), each with the reason it is where it is. docs/operations.md lists
 * them for the people who receive the alarms; the figures come from bench/RESULTS.md.
 */
export const THRESHOLDS = {
  /** Periods are 5 minutes: back-office traffic is a few requests a minute, 1-minute sums are noise. */
  period: Duration.minutes(5),
  /**
   * More than 2 answers of 5xx on one route in 5 minutes. A single 503 is a DynamoDB blip the
   * client may retry (Retry-After); three are a bug, a corrupt record asked for again and again,
   * or DynamoDB failing for real.
   */
  route5xxAbove: 2,
  /**
   * p99 above 1 s for 3 periods in a row (15 minutes). A cold start to the first answer, on the
   * share of a core a 512 MB Lambda gets and with API Gateway, the authorizer and DynamoDB in the
   * region added, stays under 1 s, and a warm GET's handler time is a small part of it
   * (docs/operations/alarms.md, from bench/RESULTS.md). At back-office volume cold starts can be
   * the slowest 1 %, so a single period over 1 s is not news; 15 minutes of it means requests
   * are waiting on DynamoDB retries (up to ~3.5 s before the 503) or on something new.
   */
  routeP99: Duration.seconds(1),
  routeP99Periods: 3,
  /**
   * Any function error: the handlers turn every failure into a SPEC 4 answer, so Lambda counts an
   * error only when the function could not answer at all: a failed init (configuration), a
   * timeout or running out of memory. Callers then get API Gateway's bare 500.
   */
  functionErrorsAbove: 0,
  /** Any throttled invocation: the stage's 50 requests/s cannot reach the account's concurrency. */
  functionThrottlesAbove: 0,
  /**
   * Slowest invocation above 80 % of the timeout (8 of 10 s): the handlers give DynamoDB about
   * 3.5 s before they answer 503, so 8 s means something hangs past that budget and the next
   * such request may end in a timeout (a bare 500).
   */
  durationNearTimeout: Duration.millis(ProjectFunction.TIMEOUT.toMilliseconds() * 0.8),
  /**
   * Any throttled read, any DynamoDB system error. The functions retry both, so callers may not
   * have noticed yet; these are the early warning before 503s.
   */
  dynamoReadThrottlesAbove: 0,
  dynamoSystemErrorsAbove: 0,
  /**
   * 50 or more 401/403 answers in 5 minutes. A person with an expired token or without the
   * customer-readers group makes a handful; a script trying tokens or ids makes hundreds (the
   * stage allows 50 requests/s). A client stuck retrying with a dead token also shows here.
   */
  authRefusalsAtLeast: 50,
} as const;

export interface MonitoringProps {
  /** Prefix of alarm and dashboard names and the namespace of the stage's own metrics. */
  readonly name: string;
  readonly httpApi: IHttpApi;
  readonly accessLogGroup: ILogGroup;
  readonly routes: readonly Route[];
  readonly functions: ReadonlyMap<string, IFunction & { readonly logGroup: ILogGroup }>;
  readonly table: ITable;
  /** Subscribed to the alarm topic when set. */
  readonly alarmEmail?: string | undefined;
  /** The topic's key goes with a disposable stage. */
  readonly disposable?: boolean;
}

/**
 * The stage's alarms, their topic and its dashboard (SPEC 7), built with cdk-monitoring-constructs
 * (alarm naming, SNS actions, dashboard segments per resource) rather than by hand; the metrics
 * AWS does not publish (cold starts, 401/403 answers) come from metric filters on the logs.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly facade: MonitoringFacade;
  readonly dashboards: DefaultDashboardFactory;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const t = THRESHOLDS;
    const namespace = props.name;

    // The topic: encrypted with its own key (an AWS-managed key cannot be used by CloudWatch),
    // and open to CloudWatch alarms of this account only.
    const key = stageKey(this, 'AlarmTopicKey', {
      description: `${props.name} alarm notifications`,
      disposable: props.disposable ?? false,
    });
    // CloudWatch's use of the key, exactly as AWS documents it for alarms that publish to an
    // encrypted topic (AWS Knowledge Center, "How do I configure a CloudWatch alarm with an
    // encrypted Amazon SNS topic?"; Amazon SNS Developer Guide, "Enable compatibility between
    // event sources from AWS services and encrypted topics"): no condition. AWS documents no
    // aws:SourceAccount or aws:SourceArn on the KMS request CloudWatch makes, so a condition
    // here could drop every alarm e-mail unseen; which alarms may publish is held by the topic
    // policy below (this account's alarms only), and the key encrypts nothing but this topic.
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsEncrypt',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `${props.name} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
          },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    this.dashboards = new DefaultDashboardFactory(this, 'Dashboards', {
      // A dashboard's name is the account's, across regions (its ARN has no region).
      dashboardNamePrefix: `${props.name}-${Aws.REGION}`,
      createDashboard: true,
      createSummaryDashboard: false,
      createAlarmDashboard: false,
      renderingPreference: DashboardRenderingPreference.INTERACTIVE_ONLY,
    });
    const action = new SnsAlarmActionStrategy({
      onAlarmTopic: this.topic,
      onOkTopic: this.topic,
    });
    this.facade = new MonitoringFacade(this, 'Facade', {
      alarmFactoryDefaults: { alarmNamePrefix: props.name, actionsEnabled: true, action },
      metricFactoryDefaults: { period: t.period },
      dashboardFactory: this.dashboards,
    });
    const alarm = { datapointsToAlarm: 1, evaluationPeriods: 1, period: t.period };
    const notBreaching = { treatMissingDataOverride: TreatMissingData.NOT_BREACHING };

    for (const route of props.routes) {
      const label = `${route.method} ${route.path}`;
      const fnId = route.function.id;
      this.facade.monitorApiGatewayV2HttpApi({
        api: props.httpApi,
        apiStage: '$default',
        apiMethod: route.method,
        apiResource: route.path,
        alarmFriendlyName: `${route.id}Route`,
        humanReadableName: label,
        latencyTypesToRender: [LatencyType.P50, LatencyType.P99],
        add5xxCountAlarm: {
          Critical: {
            maxErrorCount: t.route5xxAbove,
            ...alarm,
            ...notBreaching,
            alarmDescriptionOverride:
              `${label} answered 5xx more than ${t.route5xxAbove} times in 5 minutes: callers ` +
              'get "Internal server error" (a bug or a corrupt record) or "Service unavailable" ' +
              `(DynamoDB). First look: the access log for status 5xx on this route, then the ` +
              `${fnId} function log lines with the same apiRequestId (errorName says which).`,
          },
        },
        addLatencyP99Alarm: {
          Critical: {
            maxLatency: t.routeP99,
            datapointsToAlarm: t.routeP99Periods,
            evaluationPeriods: t.routeP99Periods,
            period: t.period,
            ...notBreaching,
            alarmDescriptionOverride:
              `${label}: the slowest 1 % of answers took over ${t.routeP99.toSeconds()} s for ` +
              `${t.routeP99Periods * 5} minutes (budget derived from bench/RESULTS.md, see ` +
              'docs/operations.md). First look: the dashboard, is it IntegrationLatency (the ' +
              `function) or API Gateway; then ${fnId}'s Duration and DynamoDB throttles. ` +
              TRACES,
          },
        },
      });
    }
    for (const [fnId, fn] of props.functions) {
      this.facade.monitorLambdaFunction({
        lambdaFunction: fn,
        alarmFriendlyName: `${fnId}Function`,
        humanReadableName: `${fnId} function`,
        isIterator: false,
        addFaultCountAlarm: {
          Critical: {
            maxErrorCount: t.functionErrorsAbove,
            ...alarm,
            ...notBreaching,
            alarmDescriptionOverride:
              `The ${fnId} function failed to answer at all (init failure, timeout or out of ` +
              "memory): callers got API Gateway's bare 500. First look: its log group for " +
              'lines of type platform.report with status error/timeout, and errorType lines.',
          },
        },
        addThrottlesCountAlarm: {
          Critical: {
            maxErrorCount: t.functionThrottlesAbove,
            ...alarm,
            ...notBreaching,
            alarmDescriptionOverride:
              `Lambda throttled ${fnId}: requests were refused for lack of concurrency. ` +
              "First look: the account's ConcurrentExecutions and other functions in the " +
              'account/region using it up; then any reserved concurrency setting.',
          },
        },
        addMaxLatencyAlarm: {
          Critical: {
            maxLatency: t.durationNearTimeout,
            ...alarm,
            ...notBreaching,
            alarmDescriptionOverride:
              `An invocation of ${fnId} ran over ${t.durationNearTimeout.toSeconds()} s of ` +
              `its ${ProjectFunction.TIMEOUT.toSeconds()} s timeout; past it callers get a bare 500. ` +
              `First look: ${fnId}'s log group (platform.report durations, its own lines' ` +
              `latencyMs), then DynamoDB's latency on the dashboard. ${TRACES}`,
          },
        },
      });
    }

    this.facade.monitorDynamoTable({
      table: props.table,
      alarmFriendlyName: 'Table',
      humanReadableName: 'DynamoDB table',
      addReadThrottledEventsCountAlarm: {
        Critical: {
          maxThrottledEventsThreshold: t.dynamoReadThrottlesAbove,
          ...alarm,
          ...notBreaching,
          alarmDescriptionOverride:
            'DynamoDB throttled reads of the table. The functions retry, then answer 503. First ' +
            "look: the dashboard's consumed read capacity (a surge of GETs, or an import " +
            'reading at the same time) and the 401/403 graph (someone scripting the API).',
        },
      },
    });

    // DynamoDB system errors: the table's own alarm, not monitorDynamoTable's, which adds nine
    // per-operation SystemErrors series with a bare `+`. DynamoDB publishes an operation's series
    // only once it has had an error, and this stack performs four of the nine: each term is
    // FILLed with 0, so that errors of any one operation alone make a datapoint to alarm on.
    const systemErrors = new MathExpression({
      expression: TABLE_OPERATIONS.map((op) => `FILL(systemError${op},0)`).join('+'),
      usingMetrics: Object.fromEntries(
        TABLE_OPERATIONS.map((op) => [
          `systemError${op}`,
          props.table.metric('SystemErrors', {
            dimensionsMap: { TableName: props.table.tableName, Operation: op },
            statistic: 'Sum',
            period: t.period,
          }),
        ]),
      ),
      label: 'System errors',
      period: t.period,
    });
    this.facade.monitorCustom({
      alarmFriendlyName: 'Table',
      humanReadableName: `DynamoDB system errors (${TABLE_OPERATIONS.join(', ')})`,
      metricGroups: [
        {
          title: 'System errors',
          metrics: [
            {
              metric: systemErrors,
              alarmFriendlyName: 'SystemErrors',
              addAlarm: {
                Critical: {
                  threshold: t.dynamoSystemErrorsAbove,
                  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                  ...alarm,
                  ...notBreaching,
                  alarmDescriptionOverride:
                    'DynamoDB answered requests to the table with internal (5xx) errors (' +
                    TABLE_OPERATIONS.join(', ') +
                    ": the functions' reads, the import's writes). The functions retry, then " +
                    'answer 503. First look: the AWS Health Dashboard for DynamoDB in this ' +
                    "region, then the routes' 5xx graphs to see whether callers are affected.",
                },
              },
            },
          ],
        },
      ],
    });

    // The lookups' indexes (SPEC 10): a throttled index read is a lookup's 503, and an index
    // that cannot keep up with the writes throttles the table's (an import's). monitorDynamoTable
    // watches the table alone; each index's series exists once it has had a throttle: FILLed.
    const indexThrottles = (kind: 'Read' | 'Write') =>
      new MathExpression({
        expression: INDEX_LIST.map((_, i) => `FILL(${kind.toLowerCase()}${i},0)`).join('+'),
        usingMetrics: Object.fromEntries(
          INDEX_LIST.map((index, i) => [
            `${kind.toLowerCase()}${i}`,
            props.table.metric(`${kind}ThrottleEvents`, {
              dimensionsMap: {
                TableName: props.table.tableName,
                GlobalSecondaryIndexName: index.name,
              },
              statistic: 'Sum',
              period: t.period,
            }),
          ]),
        ),
        label: `Index ${kind.toLowerCase()} throttles`,
        period: t.period,
      });
    this.facade.monitorCustom({
      alarmFriendlyName: 'Indexes',
      humanReadableName: `DynamoDB index throttles (${INDEX_LIST.map((i) => i.name).join(', ')})`,
      metricGroups: [
        {
          title: 'Index throttles',
          metrics: [
            {
              metric: indexThrottles('Read'),
              alarmFriendlyName: 'ReadThrottles',
              addAlarm: {
                Critical: {
                  threshold: t.dynamoReadThrottlesAbove,
                  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                  ...alarm,
                  ...notBreaching,
                  alarmDescriptionOverride:
                    "DynamoDB throttled reads of the lookups' indexes: the functions retry, then " +
                    "answer 503. First look: the dashboard's index throttles and the top readers " +
                    '(someone paging through lookups), then the 401/403 graph.',
                },
              },
            },
            indexThrottles('Write'),
          ],
        },
      ],
    });

    // Metrics AWS does not publish, from the logs.
    const authRefusals = new MetricFilter(this, 'AuthRefusalsFilter', {
      logGroup: props.accessLogGroup,
      filterPattern: FilterPattern.any(
        FilterPattern.stringValue('$.status', '=', '401'),
        FilterPattern.stringValue('$.status', '=', '403'),
      ),
      metricNamespace: namespace,
      metricName: 'AuthRefusals',
      metricValue: '1',
      defaultValue: 0,
    });
    const coldStarts = [...props.functions].map(([id, fn]) => {
      const filter = new MetricFilter(this, `${id}InitDurationFilter`, {
        logGroup: fn.logGroup,
        // Lambda's JSON REPORT line of an invocation that began with an init (a cold start).
        filterPattern: FilterPattern.all(
          FilterPattern.stringValue('$.type', '=', 'platform.report'),
          FilterPattern.numberValue('$.record.metrics.initDurationMs', '>', 0),
        ),
        metricNamespace: namespace,
        metricName: `${id}InitDuration`,
        metricValue: '$.record.metrics.initDurationMs',
      });
      return { id, filter };
    });

    this.facade.monitorCustom({
      alarmFriendlyName: 'Auth',
      humanReadableName: 'Refused tokens (401 and 403 answers, from the access log)',
      metricGroups: [
        {
          title: '401 and 403 answers',
          metrics: [
            {
              metric: authRefusals.metric({ statistic: 'Sum', period: t.period, label: '401/403' }),
              alarmFriendlyName: 'AuthRefusals',
              addAlarm: {
                Critical: {
                  threshold: t.authRefusalsAtLeast,
                  comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                  ...alarm,
                  ...notBreaching,
                  alarmDescriptionOverride:
                    `${t.authRefusalsAtLeast} or more 401/403 answers in 5 minutes: someone may ` +
                    'be probing tokens or ids, or a client is stuck with a dead token. First ' +
                    'look: the access log for status 401/403, grouped by sourceIp, userAgent ' +
                    'and userSub (authorizerError says why a token was refused).',
                },
              },
            },
          ],
        },
      ],
    });
    this.facade.monitorCustom({
      alarmFriendlyName: 'ColdStarts',
      humanReadableName: "Cold starts (from the functions' REPORT lines)",
      metricGroups: [
        {
          title: 'Cold starts',
          metrics: coldStarts.map(({ id, filter }) =>
            filter.metric({ statistic: 'SampleCount', period: t.period, label: id }),
          ),
        },
        {
          title: 'Init duration (ms)',
          metrics: coldStarts.flatMap(({ id, filter }) => [
            filter.metric({ statistic: 'p50', period: t.period, label: `${id} p50` }),
            filter.metric({ statistic: 'Maximum', period: t.period, label: `${id} max` }),
          ]),
        },
      ],
    });
  }
}
