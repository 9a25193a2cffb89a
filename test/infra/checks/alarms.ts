/**
 * SPEC 7's alarms in the template, for the default stage and for a named disposable stage: the
 * alarms and their topic, the dashboard, tracing and the logs that follow a request. Thresholds
 * are checked against lib/monitoring.ts THRESHOLDS, whose reasons are there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TABLE_OPERATIONS, THRESHOLDS, TRACES } from '../../../lib/monitoring.ts';
import { functionList, routes } from '../../../core/routes.ts';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { bothStages, onlyResource, resourcesOf, type CfnTemplate, type Json } from '../synth.ts';

const stages = bothStages();
const [[, prod], [, dev]] = stages;

describe.each(stages)('alarms, %s', (_name, get) => {
  const alarms = () =>
    resourcesOf(get().json, 'AWS::CloudWatch::Alarm').map(([, r]) => r.Properties!);
  /**
   * The alarm whose (only or summed) metric has this name and these dimension values; an index's
   * metrics (the lookups' indexes' alarm, checked on its own) aside.
   */
  const alarmOn = (metricName: string, ...dimensionValues: unknown[]): Json => {
    const onIndex = (m: Json) =>
      (m.MetricStat.Metric.Dimensions ?? []).some(
        (d: Json) => d.Name === 'GlobalSecondaryIndexName',
      );
    const found = alarms().filter((a) =>
      (a.Metrics as Json[]).some(
        (m) =>
          m.MetricStat?.Metric.MetricName === metricName &&
          !onIndex(m) &&
          dimensionValues.every((v) =>
            (m.MetricStat.Metric.Dimensions ?? []).some(
              (d: Json) => JSON.stringify(d.Value) === JSON.stringify(v),
            ),
          ),
      ),
    );
    expect([metricName, found.length]).toEqual([metricName, 1]);
    return found[0];
  };

  test('one encrypted topic; only CloudWatch alarms of this account may publish to it', () => {
    const s = get();
    const [topicId, topic] = onlyResource(s.json, 'AWS::SNS::Topic');
    const keyId = s.logicalId(s.stack.monitoring.topic.masterKey!);
    const key = s.json.Resources[keyId]!;
    expect(topic.Properties!.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(key.Properties!.EnableKeyRotation).toBe(true);
    const statements = onlyResource(s.json, 'AWS::SNS::TopicPolicy')[1].Properties!.PolicyDocument
      .Statement as Json[];
    const allows = statements.filter((st) => st.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Action: 'sns:Publish',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Resource: { Ref: topicId },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: { 'aws:SourceArn': expect.anything() },
        },
      }),
    ]);
    expect(JSON.stringify(allows[0].Condition.ArnLike)).toContain(':alarm:*');
    const keyStatements = key.Properties!.KeyPolicy.Statement as Json[];
    expect(keyStatements).toContainEqual(
      expect.objectContaining({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
  });

  test('every alarm notifies the topic on alarm and on recovery, treats missing data as fine, and says what to look at first', () => {
    const [topicId] = onlyResource(get().json, 'AWS::SNS::Topic');
    // 2 per route, 3 per function, 5 of the table, its indexes and the access log, + read budgets
    // met (checks/audit.ts) + imports failed, timed out, aborted, and upload events dropped
    // (checks/import-drop.ts)
    expect(alarms()).toHaveLength(routes.length * 2 + functionList.length * 3 + 5 + 4);
    for (const alarm of alarms()) {
      expect([
        alarm.AlarmName,
        alarm.AlarmActions,
        alarm.OKActions,
        alarm.TreatMissingData,
      ]).toEqual([alarm.AlarmName, [{ Ref: topicId }], [{ Ref: topicId }], 'notBreaching']);
      expect(alarm.ActionsEnabled).toBe(true);
      expect(alarm.AlarmDescription).toMatch(/First look: .{40,}/);
    }
  });

  test('docs/operations/alarms.md has a row for every alarm, and every row names one', () => {
    const docs = readFileSync(join(PROJECT_ROOT, 'docs/operations/alarms.md'), 'utf8');
    const section = docs.slice(docs.indexOf('\n## Alarms\n'), docs.indexOf('\nWhy there:'));
    // A row's name, its `<Route>`-like parts standing for any word.
    const rows = [...section.matchAll(/^\| `([\w<>-]+)`/gm)].map(([, row]) => row!);
    const patterns = rows.map((row) => new RegExp(`^${row.replace(/<\w+>/g, '[A-Za-z]+')}$`));
    const stack = get().stack.stackName;
    const names = alarms().map((a) =>
      String(a.AlarmName)
        .replace(`${stack}-`, '')
        .replace(/-Critical$/, ''),
    );
    for (const name of names)
      expect([name, patterns.some((p) => p.test(name))]).toEqual([name, true]);
    for (const [i, row] of rows.entries())
      expect([row, names.some((n) => patterns[i]!.test(n))]).toEqual([row, true]);
  });

  test("per route: 5xx and p99 latency on the route's own metrics (detailed metrics on)", () => {
    const s = get();
    const [, stage] = onlyResource(s.json, 'AWS::ApiGatewayV2::Stage');
    expect(stage.Properties!.DefaultRouteSettings.DetailedMetricsEnabled).toBe(true);
    for (const route of routes) {
      const fiveXx = alarmOn('5xx', route.path, route.method);
      expect(fiveXx).toMatchObject({
        Threshold: THRESHOLDS.route5xxAbove,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
      });
      expect(fiveXx.Metrics[0].MetricStat).toMatchObject({ Stat: 'Sum', Period: 300 });
      const p99 = alarmOn('Latency', route.path, route.method);
      expect(p99).toMatchObject({
        Threshold: THRESHOLDS.routeP99.toMilliseconds(),
        DatapointsToAlarm: THRESHOLDS.routeP99Periods,
        EvaluationPeriods: THRESHOLDS.routeP99Periods,
      });
      expect(p99.Metrics[0].MetricStat.Stat).toBe('p99');
    }
  });

  test('per function: errors, throttles and a duration near the timeout', () => {
    const s = get();
    for (const spec of functionList) {
      const fn = { Ref: s.logicalId(s.stack.api.functions.get(spec.id)!) };
      expect(alarmOn('Errors', fn)).toMatchObject({ Threshold: 0 });
      expect(alarmOn('Throttles', fn)).toMatchObject({ Threshold: 0 });
      const duration = alarmOn('Duration', fn);
      expect(duration.Metrics[0].MetricStat.Stat).toBe('Maximum');
      // 80 % of the function's timeout.
      expect(duration.Threshold).toBe(0.8 * 10_000);
    }
  });

  test('DynamoDB throttled reads and system errors; a surge of 401/403 from the access log', () => {
    const s = get();
    const table = { Ref: s.logicalId(s.stack.data.table) };
    expect(alarmOn('ReadThrottleEvents', table)).toMatchObject({ Threshold: 0 });
    const systemErrors = alarmOn('SystemErrors', table, 'GetItem');
    expect(systemErrors.Metrics[0].Expression).toContain('systemErrorGetItem');
    // Each lookup index's read throttles, summed: the table's own alarm sees none of them.
    const indexes = alarms().find((a) => String(a.AlarmName).includes('Indexes-ReadThrottles'))!;
    const names = (indexes.Metrics as Json[])
      .filter((m) => m.MetricStat)
      .map(
        (m) =>
          m.MetricStat.Metric.Dimensions.find((d: Json) => d.Name === 'GlobalSecondaryIndexName')
            .Value,
      )
      .sort();
    expect(names).toEqual(['customer-transactions', 'id-no', 'last-name', 'receipt', 'sss', 'tin']);
    expect(indexes.Threshold).toBe(0);

    const refusals = alarmOn('AuthRefusals');
    expect(refusals).toMatchObject({
      Threshold: THRESHOLDS.authRefusalsAtLeast,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const filter = resourcesOf(s.json, 'AWS::Logs::MetricFilter')
      .map(([, r]) => r.Properties!)
      .find((p) => p.MetricTransformations[0].MetricName === 'AuthRefusals')!;
    expect(filter.LogGroupName).toEqual({ Ref: s.logicalId(s.stack.api.accessLogGroup) });
    expect(filter.FilterPattern).toBe('{ ($.status = "401") || ($.status = "403") }');
    expect(refusals.Metrics[0].MetricStat.Metric.Namespace).toBe(
      filter.MetricTransformations[0].MetricNamespace,
    );
  });
});

describe.each(stages)('dashboard, tracing and logs, %s', (_name, get) => {
  test('one dashboard: per route requests, 4xx, 5xx, p50/p99; cold starts and init time; DynamoDB read capacity and throttles', () => {
    const [, dashboard] = onlyResource(get().json, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties!.DashboardBody);
    for (const route of routes) expect(body).toContain(route.path);
    for (const text of [
      '\\"Count\\"',
      '\\"4xx\\"',
      '\\"5xx\\"',
      'p50',
      'p99',
      'Cold starts',
      'InitDuration',
      'ConsumedReadCapacityUnits',
      'ReadThrottleEvents',
    ]) {
      expect([text, body.includes(text)]).toEqual([text, true]);
    }
  });

  test("cold starts are counted from the REPORT line of each function's own log group", () => {
    const s = get();
    const filters = resourcesOf(s.json, 'AWS::Logs::MetricFilter').map(([, r]) => r.Properties!);
    for (const spec of functionList) {
      const fn = s.stack.api.functions.get(spec.id)!;
      const filter = filters.find(
        (p) => p.MetricTransformations[0].MetricName === `${spec.id}InitDuration`,
      )!;
      expect(filter.LogGroupName).toEqual({ Ref: s.logicalId(fn.logGroup as never) });
      expect(filter.FilterPattern).toContain('$.type = "platform.report"');
      expect(filter.MetricTransformations[0].MetricValue).toBe('$.record.metrics.initDurationMs');
    }
  });

  test('every function: active tracing, Lambda JSON logs, INFO and up', () => {
    const functions = resourcesOf(get().json, 'AWS::Lambda::Function').filter(([id]) =>
      id.startsWith('Api'),
    );
    expect(functions).toHaveLength(functionList.length);
    for (const [, fn] of functions) {
      expect(fn.Properties!.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties!.LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'INFO',
      });
    }
  });
});

test('alarmEmail subscribes the address to the topic; without it there is no subscription', () => {
  const subscriptions = (json: CfnTemplate) =>
    resourcesOf(json, 'AWS::SNS::Subscription').map(([, r]) => r.Properties!);
  expect(subscriptions(prod().json)).toEqual([]);
  expect(subscriptions(dev().json)).toEqual([
    expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com' }),
  ]);
  expect(Object.keys(dev().json.Outputs ?? {})).toContain('AlarmTopicArn');
});

/**
 * Issue 17: math alarms that can fire when one of their series has a datapoint and the others
 * have none. DynamoDB publishes SystemErrors for an operation only once it has had an error, so
 * at a given timestamp most per-operation series are empty. This evaluates an alarm's expression
 * at one timestamp the strict way (a bare series without a datapoint there makes `+` give none;
 * FILL(x, 0) gives 0), so an expression that relies on CloudWatch treating gaps as 0 fails here.
 * Only the forms the stack uses are understood; anything else fails and needs adding.
 */
function evaluateAt(expression: string, datapoints: Record<string, number>): number | undefined {
  let sum = 0;
  for (const term of expression.split('+').map((t) => t.trim())) {
    const filled = /^FILL\((\w+),\s*0\)$/.exec(term);
    if (filled) sum += datapoints[filled[1]!] ?? 0;
    else if (/^\w+$/.test(term)) {
      const value = datapoints[term];
      if (value === undefined) return undefined;
      sum += value;
    } else throw new Error(`evaluateAt does not understand ${term} in ${expression}`);
  }
  return sum;
}

test('the strict evaluation: a bare sum gives no datapoint where one series has none', () => {
  expect(evaluateAt('a+b', { a: 2 })).toBeUndefined();
  expect(evaluateAt('FILL(a,0)+FILL(b,0)', { a: 2 })).toBe(2);
  expect(() => evaluateAt('SUM(METRICS())', {})).toThrow(/does not understand/);
});

describe.each(stages)('math alarms fire on one series alone, %s', (_name, get) => {
  const mathAlarms = () =>
    resourcesOf(get().json, 'AWS::CloudWatch::Alarm')
      .map(([, r]) => r.Properties!)
      .filter((a) => (a.Metrics as Json[] | undefined)?.some((m) => m.Expression));

  test('DynamoDB system errors: one term per operation the stack performs, each FILLed', () => {
    const s = get();
    const table = { Ref: s.logicalId(s.stack.data.table) };
    const alarm = mathAlarms().find((a) =>
      (a.Metrics as Json[]).some((m) => m.MetricStat?.Metric.MetricName === 'SystemErrors'),
    )!;
    const series = (alarm.Metrics as Json[]).filter((m) => m.MetricStat);
    expect(series.map((m) => m.MetricStat.Metric.Dimensions)).toEqual(
      TABLE_OPERATIONS.map((op) => [
        { Name: 'Operation', Value: op },
        { Name: 'TableName', Value: table },
      ]),
    );
    for (const m of series) expect(m.MetricStat).toMatchObject({ Stat: 'Sum', Period: 300 });
    const [expression] = (alarm.Metrics as Json[]).filter((m) => m.Expression);
    expect(expression.ReturnData).not.toBe(false);
    // Errors of any one operation alone cross the threshold; no errors anywhere stay under it.
    for (const m of series) {
      const value = evaluateAt(expression.Expression, { [m.Id]: 1 });
      expect([m.Id, value! > alarm.Threshold]).toEqual([m.Id, true]);
    }
    expect(evaluateAt(expression.Expression, {})).toBe(0);
    expect(alarm.ComparisonOperator).toBe('GreaterThanThreshold');
    expect(alarm.Threshold).toBe(THRESHOLDS.dynamoSystemErrorsAbove);
  });

  test('every math alarm in the stack has a datapoint when only one of its series has one', () => {
    const alarms = mathAlarms();
    expect(alarms.length).toBeGreaterThanOrEqual(2);
    for (const alarm of alarms) {
      const [expression] = (alarm.Metrics as Json[]).filter((m) => m.ReturnData !== false);
      for (const m of (alarm.Metrics as Json[]).filter((x) => x.MetricStat)) {
        const value = evaluateAt(expression.Expression, { [m.Id]: 1 });
        expect([alarm.AlarmName, m.Id, value]).toEqual([alarm.AlarmName, m.Id, 1]);
      }
    }
  });
});

/**
 * Issue 17: traces as they are. HTTP APIs send no traces to X-Ray and nothing in the bundles
 * instruments the SDK (test/infra/lambda-bundles.test.ts), so a trace holds Lambda's segments only; the
 * alarm descriptions and docs/operations/alarms.md say so and promise nothing more.
 */
describe.each(stages)('what a trace holds, %s', (_name, get) => {
  test('the API is an HTTP API (no X-Ray tracing in API Gateway): no REST API or stage to trace', () => {
    const json = get().json;
    const [, api] = onlyResource(json, 'AWS::ApiGatewayV2::Api');
    expect(api.Properties!.ProtocolType).toBe('HTTP');
    expect(
      Object.values(json.Resources).filter((r) => r.Type.startsWith('AWS::ApiGateway::')),
    ).toEqual([]);
  });

  test('every alarm description that points to traces says what they hold, and promises no DynamoDB or API Gateway segment', () => {
    const alarms = resourcesOf(get().json, 'AWS::CloudWatch::Alarm').map(([, r]) => r.Properties!);
    const pointing = alarms.filter((a) => /X-Ray|trace/i.test(a.AlarmDescription as string));
    expect(pointing.length).toBeGreaterThanOrEqual(routes.length);
    for (const alarm of pointing) {
      expect([alarm.AlarmName, (alarm.AlarmDescription as string).includes(TRACES)]).toEqual([
        alarm.AlarmName,
        true,
      ]);
      expect(alarm.AlarmDescription).not.toMatch(/traces of/i);
    }
  });
});

test('docs/operations/alarms.md says what a trace holds, and not that it follows API Gateway or the DynamoDB call', () => {
  const docs = readFileSync(join(PROJECT_ROOT, 'docs/operations/alarms.md'), 'utf8');
  const start = docs.indexOf('\n## Following a request\n');
  expect(start).toBeGreaterThanOrEqual(0);
  const section = docs.slice(start, docs.indexOf('```', start));
  const prose = section.replace(/\s+/g, ' ');
  for (const said of [
    "It holds Lambda's segments only",
    '`Initialization` (on a cold start), `Invocation` and `Overhead`',
    'It has no API Gateway segment (HTTP APIs do not send traces to X-Ray',
    'no DynamoDB subsegment (nothing in the bundles instruments the AWS SDK',
  ])
    expect([said, prose.includes(said)]).toEqual([said, true]);
  expect(prose).not.toMatch(/trace per request: API Gateway|its DynamoDB call/);
  // The alarm table's first looks promise no more than the section does.
  expect(docs).not.toMatch(/X-Ray traces of/);
});
