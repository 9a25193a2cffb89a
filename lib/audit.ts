import { Stack } from 'aws-cdk-lib';
import {
  CfnInsightRule,
  ComparisonOperator,
  ConcreteWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import {
  CfnQueryDefinition,
  FilterPattern,
  MetricFilter,
  type ILogGroup,
} from 'aws-cdk-lib/aws-logs';
import type { MonitoringFacade } from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { IMPORT_AUDIT_MESSAGE } from '../import/audit.ts';
import { THRESHOLDS } from './monitoring.ts';

/**
 * The `message` of an audit event: the functions write one JSON line per request into their own
 * log group (SPEC 8), with top-level fields `route`, `entity`, `recordId`, `status`, `sub`,
 * `username`, `groups`, `sourceIp`, `userAgent`, `requestId` and `apiRequestId`.
 */
export const AUDIT_MESSAGE = 'audit';

/** What a saved query's user replaces before running it (docs/operations.md). */
export const AUDIT_QUERY_PLACEHOLDERS = {
  customer: 'CUSTOMER_ID',
  transaction: 'TRANSACTION_ID',
  user: 'USERNAME_OR_SUB',
} as const;

/** Columns every saved query shows; never a field of a record (there is none in an event). */
const WHO_AND_HOW = 'status, sub, username, groups.0, sourceIp, userAgent, apiRequestId, requestId';

/**
 * Who read one record, oldest first: its GETs, the lookups that returned it (SPEC 10: its id in
 * `recordIds`), and for a customer the listings of their transactions (`lookup` `customer_id`,
 * `recordId` the customer's). A lookup's `recordId` names no record of its own kind.
 */
function byRecord(entity: 'customer' | 'transaction'): string {
  const id = AUDIT_QUERY_PLACEHOLDERS[entity];
  const read = `(entity = "${entity}" and recordId = "${id}" and isblank(lookup))`;
  const returned = `(entity = "${entity}" and @message like /"recordIds":\\[[^\\]]*"${id}"/)`;
  const listed = `(lookup = "customer_id" and recordId = "${id}")`;
  const which = entity === 'customer' ? [read, returned, listed] : [read, returned];
  return [
    `fields @timestamp, route, recordId, lookup, ${WHO_AND_HOW}`,
    `| filter message = "${AUDIT_MESSAGE}" and (${which.join(' or ')})`,
    '| sort @timestamp asc',
    '| limit 10000',
  ].join('\n');
}

/** The saved Logs Insights queries, oldest event first, by the name suffix they are saved under. */
export const AUDIT_QUERIES: Record<'by-customer' | 'by-transaction' | 'by-user', string> = {
  'by-customer': byRecord('customer'),
  'by-transaction': byRecord('transaction'),
  'by-user': [
    `fields @timestamp, route, entity, recordId, lookup, recordIds.0, ${WHO_AND_HOW}`,
    `| filter message = "${AUDIT_MESSAGE}" and (username = "${AUDIT_QUERY_PLACEHOLDERS.user}" or sub = "${AUDIT_QUERY_PLACEHOLDERS.user}")`,
    '| sort @timestamp asc',
    '| limit 10000',
  ].join('\n'),
};

/** What a saved change query's user replaces: a record's id, or an import's id. */
export const IMPORT_QUERY_PLACEHOLDERS = {
  customer: 'CUSTOMER_ID',
  transaction: 'TRANSACTION_ID',
  import: 'IMPORT_ID',
} as const;

/** Which import put or deleted one record, and from which line; oldest first. */
function changesOf(entity: 'customer' | 'transaction'): string {
  return [
    'fields @timestamp, importId, action, entity, recordId, line',
    `| filter message = "${IMPORT_AUDIT_MESSAGE}" and kind = "record" and entity = "${entity}" and recordId = "${IMPORT_QUERY_PLACEHOLDERS[entity]}"`,
    '| sort @timestamp asc',
    '| limit 10000',
  ].join('\n');
}

/**
 * The saved queries of changes (SPEC 9): who changed customer 42 (the import and its line), and
 * an import's file, version, SHA-256, uploader and outcome; the uploader's IAM principal is in
 * the import bucket's server access logs, by the S3 request id (docs/operations.md).
 */
export const IMPORT_QUERIES: Record<
  'changes-by-customer' | 'changes-by-transaction' | 'import',
  string
> = {
  'changes-by-customer': changesOf('customer'),
  'changes-by-transaction': changesOf('transaction'),
  import: [
    'fields @timestamp, kind, importId, key, versionId, sha256, requester, sourceIp, s3RequestId, outcome, counts.records, problems',
    `| filter message = "${IMPORT_AUDIT_MESSAGE}" and kind != "record" and importId = "${IMPORT_QUERY_PLACEHOLDERS.import}"`,
    '| sort @timestamp asc',
  ].join('\n'),
};

/** How many readers the dashboard widget shows per period. */
export const TOP_READERS = 10;

interface ContributorInsightsWidgetProps {
  readonly rule: CfnInsightRule;
  readonly title: string;
  readonly maxContributorCount: number;
  readonly periodSeconds: number;
  readonly width?: number;
  readonly height?: number;
}

/**
 * A dashboard widget showing a Contributor Insights rule's top contributors. CDK has no typed
 * one; this emits the metric-widget shape the CloudWatch console saves for such a graph.
 */
export class ContributorInsightsWidget extends ConcreteWidget {
  private readonly props: ContributorInsightsWidgetProps;
  constructor(props: ContributorInsightsWidgetProps) {
    super(props.width ?? 24, props.height ?? 6);
    this.props = props;
  }

  toJson(): unknown[] {
    return [
      {
        type: 'metric',
        width: this.width,
        height: this.height,
        x: this.x,
        y: this.y,
        properties: {
          title: this.props.title,
          region: Stack.of(this.props.rule).region,
          view: 'timeSeries',
          period: this.props.periodSeconds,
          legend: { position: 'bottom' },
          insightRule: {
            maxContributorCount: this.props.maxContributorCount,
            orderBy: 'Sum',
            ruleName: this.props.rule.attrRuleName,
          },
        },
      },
    ];
  }
}

export interface AuditTrailProps {
  /** Prefix of the rule, query and metric names (the stack name). */
  readonly name: string;
  /** The log groups the functions write their audit events to. */
  readonly functionLogGroups: readonly ILogGroup[];
  /** The log groups the import's steps write their change events to (SPEC 9). */
  readonly importLogGroups: readonly ILogGroup[];
  /** The stage's monitoring: the budget alarm and the widgets go on its topic and dashboard. */
  readonly facade: MonitoringFacade;
}

/**
 * What makes the audit events of SPEC 8 usable in AWS: the top readers per route (Contributor
 * Insights, on the dashboard), an alarm when any user meets a read budget, and saved Logs
 * Insights queries by customer, transaction and user. The events themselves are kept by the
 * functions' log groups (five years, retained: lib/project-function.ts).
 */
export class AuditTrail extends Construct {
  readonly topReaders: CfnInsightRule;
  readonly budgetsMet: MetricFilter[];
  readonly queries: Record<keyof typeof AUDIT_QUERIES, CfnQueryDefinition>;

  constructor(scope: Construct, id: string, props: AuditTrailProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const logGroupNames = props.functionLogGroups.map((g) => g.logGroupName);

    this.topReaders = new CfnInsightRule(this, 'TopReaders', {
      ruleName: `${props.name}-audit-top-readers`,
      ruleState: 'ENABLED',
      ruleBody: stack.toJsonString({
        Schema: { Name: 'CloudWatchLogRule', Version: 1 },
        LogGroupNames: logGroupNames,
        LogFormat: 'JSON',
        Contribution: {
          Keys: ['$.route', '$.username'],
          Filters: [{ Match: '$.message', In: [AUDIT_MESSAGE] }],
        },
        // Records read, not requests: a lookup's event counts its summaries (functions/shared/audit.ts).
        AggregateOn: 'Sum',
        ValueOf: '$.reads',
      }),
    });

    // One filter per log group, all into one metric: any user on any route meeting a budget.
    this.budgetsMet = props.functionLogGroups.map(
      (logGroup, i) =>
        new MetricFilter(this, `BudgetMetFilter${i}`, {
          logGroup,
          filterPattern: FilterPattern.all(
            FilterPattern.stringValue('$.message', '=', AUDIT_MESSAGE),
            FilterPattern.numberValue('$.status', '=', 429),
          ),
          metricNamespace: props.name,
          metricName: 'ReadBudgetsMet',
          metricValue: '1',
          defaultValue: 0,
        }),
    );

    const queries = {} as Record<keyof typeof AUDIT_QUERIES, CfnQueryDefinition>;
    for (const [suffix, queryString] of Object.entries(AUDIT_QUERIES)) {
      queries[suffix as keyof typeof AUDIT_QUERIES] = new CfnQueryDefinition(
        this,
        `Query-${suffix}`,
        { name: `${props.name}/audit/${suffix}`, queryString, logGroupNames },
      );
    }
    this.queries = queries;
    const importLogGroupNames = props.importLogGroups.map((g) => g.logGroupName);
    for (const [suffix, queryString] of Object.entries(IMPORT_QUERIES))
      new CfnQueryDefinition(this, `Query-${suffix}`, {
        name: `${props.name}/audit/${suffix}`,
        queryString,
        logGroupNames: importLogGroupNames,
      });

    const period = THRESHOLDS.period;
    props.facade.addLargeHeader('Audit: who reads what (SPEC 8)');
    props.facade.addWidget(
      new ContributorInsightsWidget({
        rule: this.topReaders,
        title: `Top readers per route (Contributor Insights rule ${props.name}-audit-top-readers)`,
        maxContributorCount: TOP_READERS,
        periodSeconds: period.toSeconds(),
      }),
    );
    props.facade.monitorCustom({
      alarmFriendlyName: 'ReadBudgets',
      humanReadableName: 'Read budgets met (429 answers, from the audit events)',
      metricGroups: [
        {
          title: 'Reads refused over budget',
          metrics: [
            {
              metric: this.budgetsMet[0]!.metric({
                statistic: 'Sum',
                period,
                label: 'budgets met',
              }),
              alarmFriendlyName: 'ReadBudgetsMet',
              addAlarm: {
                Critical: {
                  threshold: 1,
                  comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                  datapointsToAlarm: 1,
                  evaluationPeriods: 1,
                  period,
                  treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
                  alarmDescriptionOverride:
                    'A user met a read budget (SPEC 8): they read more records in one window ' +
                    'than a person at work does, and got 429 answers. A script, a leaked token or ' +
                    'a bulk export. First look: the dashboard widget "Top readers per route" (who, ' +
                    `how many), then the saved Logs Insights query ${props.name}/audit/by-user ` +
                    'with their username (what they read). To stop them: npm run access -- ' +
                    'revoke <user> (docs/operations.md, offboarding).',
                },
              },
            },
          ],
        },
      ],
    });
  }
}
