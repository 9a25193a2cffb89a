/**
 * SPEC 8 in the template, for the default stage and a named disposable stage: 15-minute tokens,
 * the audit trail kept five years and retained, the top readers (Contributor Insights) and their
 * widget, the budget alarm on the stage's topic, the saved queries, and functions that may write
 * access-state items only.
 */
import { AUDIT_QUERIES, AUDIT_QUERY_PLACEHOLDERS, TOP_READERS } from '../../../lib/audit.ts';
import { functionList } from '../../../core/routes.ts';
import { ENTITIES } from '../../../core/entities.ts';
import {
  bothStages,
  onlyResource,
  resourcesOf,
  type CfnTemplate,
  type Json,
  type Synthesized,
} from '../synth.ts';

const stages = bothStages();

const list = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

/** `{ Ref: <log group> }` of each API function's log group, in core/routes.ts order. */
function functionLogGroupRefs(s: Synthesized): Json[] {
  return functionList.map((spec) => ({
    Ref: s.logicalId(s.stack.api.functions.get(spec.id)!.logGroup as never),
  }));
}

/** The statements of the IAM policies attached to a role. */
function statementsOf(json: CfnTemplate, roleId: string): Json[] {
  return resourcesOf(json, 'AWS::IAM::Policy')
    .filter(([, p]) =>
      (p.Properties!.Roles as Json[]).some(
        (r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId }),
      ),
    )
    .flatMap(([, p]) => p.Properties!.PolicyDocument.Statement as Json[]);
}

test('access and ID tokens live 15 minutes; refresh tokens 12 hours', () => {
  for (const s of stages.map(([, get]) => get())) {
    const [, client] = onlyResource(s.json, 'AWS::Cognito::UserPoolClient');
    const p = client.Properties!;
    const seconds = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as Record<string, number>;
    const units = p.TokenValidityUnits ?? {};
    // CloudFormation's default unit is hours for access and ID tokens, days for refresh tokens.
    expect(p.AccessTokenValidity * seconds[units.AccessToken ?? 'hours']!).toBe(900);
    expect(p.IdTokenValidity * seconds[units.IdToken ?? 'hours']!).toBe(900);
    expect(p.RefreshTokenValidity * seconds[units.RefreshToken ?? 'days']!).toBe(12 * 3600);
    expect(p.EnableTokenRevocation).toBe(true);
  }
});

describe.each(stages)('%s', (name, get) => {
  const disposable = name.startsWith('disposable');

  test('the audit trail (function logs) and the access log: 1,827 days, retained unless disposable', () => {
    const s = get();
    const groups = [
      ...functionLogGroupRefs(s).map((ref) => ref.Ref as string),
      s.logicalId(s.stack.api.accessLogGroup),
    ];
    expect(new Set(groups).size).toBe(functionList.length + 1);
    for (const id of groups) {
      const group = s.json.Resources[id]!;
      expect([id, group.Type, group.Properties!.RetentionInDays]).toEqual([
        id,
        'AWS::Logs::LogGroup',
        1827,
      ]);
      // Deletion-protected, so kept even by a rolled-back create (docs/decisions/0032).
      const [onDelete, onReplace] = disposable ? ['Delete', 'Delete'] : ['Retain', 'Retain'];
      expect([id, group.DeletionPolicy, group.UpdateReplacePolicy]).toEqual([
        id,
        onDelete,
        onReplace,
      ]);
    }
  });

  test('a Contributor Insights rule counts audit events per route and user in both function log groups', () => {
    const s = get();
    const [, rule] = onlyResource(s.json, 'AWS::CloudWatch::InsightRule');
    expect(rule.Properties!.RuleState).toBe('ENABLED');
    expect(rule.Properties!.RuleName).toBe(`${s.stack.stackName}-audit-top-readers`);
    // The body is a JSON string with the log group names spliced in by Fn::Join.
    const rendered = (rule.Properties!.RuleBody['Fn::Join'][1] as Json[])
      .map((part) => (typeof part === 'string' ? part : `"__${part.Ref}__"`))
      .join('')
      .replace(/""__(\w+)__""/g, '"__$1__"');
    const body = JSON.parse(rendered) as Json;
    expect(body).toEqual({
      Schema: { Name: 'CloudWatchLogRule', Version: 1 },
      LogGroupNames: functionLogGroupRefs(s).map((ref) => `__${ref.Ref}__`),
      LogFormat: 'JSON',
      Contribution: {
        Keys: ['$.route', '$.username'],
        Filters: [{ Match: '$.message', In: ['audit'] }],
      },
      AggregateOn: 'Sum',
      ValueOf: '$.reads',
    });
  });

  test('the dashboard shows the top readers per route from that rule', () => {
    const s = get();
    const [ruleId] = onlyResource(s.json, 'AWS::CloudWatch::InsightRule');
    const [, dashboard] = onlyResource(s.json, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties!.DashboardBody);
    expect(body).toContain('Top readers per route');
    expect(body).toContain(`\\"insightRule\\":{\\"maxContributorCount\\":${TOP_READERS}`);
    expect(body).toContain('\\"orderBy\\":\\"Sum\\",\\"ruleName\\":\\"');
    expect(body).toContain(JSON.stringify({ 'Fn::GetAtt': [ruleId, 'RuleName'] }));
  });

  test('an alarm on the stage topic when any user meets a read budget, saying where to look', () => {
    const s = get();
    const [topicId] = onlyResource(s.json, 'AWS::SNS::Topic');
    const filters = resourcesOf(s.json, 'AWS::Logs::MetricFilter')
      .map(([, r]) => r.Properties!)
      .filter((p) => p.MetricTransformations[0].MetricName === 'ReadBudgetsMet');
    expect(filters.map((f) => f.LogGroupName)).toEqual(functionLogGroupRefs(s));
    for (const f of filters) {
      expect(f.FilterPattern).toBe('{ ($.message = "audit") && ($.status = 429) }');
      expect(f.MetricTransformations[0]).toMatchObject({
        MetricNamespace: s.stack.stackName,
        MetricValue: '1',
      });
    }
    const alarms = resourcesOf(s.json, 'AWS::CloudWatch::Alarm')
      .map(([, r]) => r.Properties!)
      .filter((a) =>
        (a.Metrics as Json[]).some((m) => m.MetricStat?.Metric.MetricName === 'ReadBudgetsMet'),
      );
    expect(alarms).toHaveLength(1);
    const alarm = alarms[0]!;
    expect(alarm).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
    expect(alarm.Metrics[0].MetricStat).toMatchObject({ Stat: 'Sum', Period: 300 });
    expect(alarm.Metrics[0].MetricStat.Metric.Namespace).toBe(s.stack.stackName);
    expect(alarm.AlarmName).toMatch(new RegExp(`^${s.stack.stackName}\\b`));
    expect(alarm.AlarmDescription).toContain('Top readers per route');
    expect(alarm.AlarmDescription).toContain(`${s.stack.stackName}/audit/by-user`);
  });

  test('saved Logs Insights queries by customer, transaction and user over both function log groups', () => {
    const s = get();
    // The read queries (SPEC 8); the change queries of the import drop: test/infra/checks/import-drop.ts.
    const reads = new Set(Object.keys(AUDIT_QUERIES).map((x) => `${s.stack.stackName}/audit/${x}`));
    const queries = resourcesOf(s.json, 'AWS::Logs::QueryDefinition')
      .map(([, r]) => r.Properties!)
      .filter((q) => reads.has(q.Name as string));
    expect(queries.map((q) => q.Name).sort()).toEqual(
      ['by-customer', 'by-transaction', 'by-user'].map((x) => `${s.stack.stackName}/audit/${x}`),
    );
    for (const q of queries) {
      expect(q.LogGroupNames).toEqual(functionLogGroupRefs(s));
      expect(q.QueryString).toContain('filter message = "audit"');
      expect(q.QueryString).toContain('sort @timestamp asc');
      const suffix = (q.Name as string).split('/').pop() as keyof typeof AUDIT_QUERIES;
      expect(q.QueryString).toBe(AUDIT_QUERIES[suffix]);
    }
    const byName = (suffix: string) =>
      queries.find((q) => q.Name === `${s.stack.stackName}/audit/${suffix}`)!.QueryString;
    expect(byName('by-customer')).toContain(
      `entity = "customer" and recordId = "${AUDIT_QUERY_PLACEHOLDERS.customer}"`,
    );
    expect(byName('by-transaction')).toContain(
      `entity = "transaction" and recordId = "${AUDIT_QUERY_PLACEHOLDERS.transaction}"`,
    );
    // SPEC 10: the lookups that returned the record, by its id among `recordIds`, whole.
    for (const [suffix, placeholder] of [
      ['by-customer', AUDIT_QUERY_PLACEHOLDERS.customer],
      ['by-transaction', AUDIT_QUERY_PLACEHOLDERS.transaction],
    ] as const) {
      const source = /@message like \/(.+?)\/\)/.exec(byName(suffix))![1]!;
      const returned = new RegExp(source.replace(placeholder, '42'));
      const line = (ids: string[]) => JSON.stringify({ message: 'audit', recordIds: ids });
      expect(
        [['42'], ['1', '42', '7'], ['42', '5']].map((ids) => returned.test(line(ids))),
      ).toEqual([true, true, true]);
      expect([['142'], ['420'], ['4', '2'], []].map((ids) => returned.test(line(ids)))).toEqual([
        false,
        false,
        false,
        false,
      ]);
    }
    expect(byName('by-customer')).toContain(
      `lookup = "customer_id" and recordId = "${AUDIT_QUERY_PLACEHOLDERS.customer}"`,
    );
    expect(byName('by-transaction')).not.toContain('customer_id');
    expect(byName('by-user')).toContain(`username = "${AUDIT_QUERY_PLACEHOLDERS.user}"`);
    expect(byName('by-user')).toContain(`sub = "${AUDIT_QUERY_PLACEHOLDERS.user}"`);
  });

  test('functions write to the table only by UpdateItem on access-state keys (USER#...)', () => {
    const s = get();
    const tableArn = { 'Fn::GetAtt': [s.logicalId(s.stack.data.table), 'Arn'] };
    for (const spec of functionList) {
      const fn = s.json.Resources[s.logicalId(s.stack.api.functions.get(spec.id)!)]!;
      const roleId = fn.Properties!.Role['Fn::GetAtt'][0] as string;
      const dynamo = statementsOf(s.json, roleId).filter((st) =>
        list<string>(st.Action).some((a) => a.startsWith('dynamodb:')),
      );
      const writes = dynamo.filter((st) =>
        list<string>(st.Action).some((a) => !/^dynamodb:(GetItem|Query)$/.test(a)),
      );
      expect(writes).toEqual([
        {
          Effect: 'Allow',
          Action: 'dynamodb:UpdateItem',
          Resource: tableArn,
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*'] },
            Null: { 'dynamodb:LeadingKeys': 'false' },
          },
        },
      ]);
      const actions = dynamo.flatMap((st) => list<string>(st.Action));
      for (const forbidden of [
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:TransactWriteItems',
        'dynamodb:PartiQLInsert',
        'dynamodb:PartiQLUpdate',
        'dynamodb:PartiQLDelete',
        'dynamodb:*',
      ])
        expect(actions).not.toContain(forbidden);
      // The read: GetItem of the route's own records and of access state, nothing else.
      const partition = ENTITIES[spec.entity].keys.partition;
      expect(dynamo.filter((st) => st.Action === 'dynamodb:GetItem')).toEqual([
        {
          Effect: 'Allow',
          Action: 'dynamodb:GetItem',
          Resource: tableArn,
          Condition: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${partition}*`, 'USER#*'] },
            Null: { 'dynamodb:LeadingKeys': 'false' },
          },
        },
      ]);
    }
  });
});
