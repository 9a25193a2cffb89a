/** Deploy-time settings from CDK context: they reach the functions and CORS, and bad ones stop synth. */
import { App } from 'aws-cdk-lib';
import { createApp } from '../../../lib/app.ts';
import {
  DEFAULT_SETTINGS,
  settingsFromContext,
  settingsToContext,
} from '../../../stage/settings.ts';
import {
  CDK_JSON_CONTEXT,
  onlyResource,
  resourcesUnder,
  scratchOutdir,
  synthesize,
  type Synthesized,
} from '../synth.ts';

/** A certificate ARN of the form ACM gives, in us-east-1 as CloudFront requires. */
const CERTIFICATE_ARN =
  'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({
    context: {
      signatureUrlTtlSeconds: '900',
      displayTimeZone: 'Asia/Manila',
      corsAllowOrigins: 'https://backoffice.example.com, https://ops.example.com:8443',
      // As `-c key=value` passes them: strings.
      readBudgetCustomers: '12',
      readBudgetTransactions: '34',
      readBudgetWindowSeconds: '60',
    },
  });
});

test('the documented defaults are in code, none in cdk.json: TTL 300 s, Asia/Manila, no CORS, SPEC 8 read budgets', () => {
  // A setting in cdk.json would count as given on every deploy and undo a stage's own
  // (stage/deployed-settings.ts).
  const settingKeys = Object.keys(
    settingsToContext(DEFAULT_SETTINGS, {
      disposable: false,
      alarmEmail: 'ops@example.com',
    }),
  );
  expect(settingKeys.filter((key) => key in CDK_JSON_CONTEXT)).toEqual([]);
  expect(
    settingsFromContext(new App({ outdir: scratchOutdir(), context: CDK_JSON_CONTEXT }).node),
  ).toEqual(DEFAULT_SETTINGS);
  expect(settingsFromContext(new App({ outdir: scratchOutdir() }).node)).toEqual({
    signatureUrlTtlSeconds: 300,
    displayTimeZone: 'Asia/Manila',
    currency: 'PHP',
    businessName: 'Currency Exchange',
    corsAllowOrigins: [],
    readBudgets: { customers: 60, transactions: 300, windowSeconds: 300 },
    importConcurrency: 10,
    importFileCheck: true,
    threatProtection: 'audit',
    priceClass: 'PriceClass_200',
  });
});

test("a backfill's warm write throughput reaches the table only when asked for", () => {
  const table = (synth: Synthesized) =>
    onlyResource(synth.json, 'AWS::DynamoDB::Table')[1].Properties!;
  expect(table(s).WarmThroughput).toBeUndefined();
  const warm = synthesize({ context: { tableWarmWritesPerSecond: '40000' } });
  // Writes only: the import reads nothing (a record is one UpdateItem, core/layout.ts).
  expect(table(warm).WarmThroughput).toEqual({ WriteUnitsPerSecond: 40_000 });
  // Each index too: a record's write writes its indexes, and an index that cannot keep up
  // throttles the table's writes (docs/operations/loading-records.md).
  const indexes = table(warm).GlobalSecondaryIndexes as { WarmThroughput?: unknown }[];
  expect(indexes).toHaveLength(6);
  for (const index of indexes)
    expect(index.WarmThroughput).toEqual({ WriteUnitsPerSecond: 40_000 });
  for (const index of table(s).GlobalSecondaryIndexes as { WarmThroughput?: unknown }[])
    expect(index.WarmThroughput).toBeUndefined();
});

/** Issue 54: AWS advises two weeks of audit first, and no stage has run yet. */
test('threat protection: audit on every stage by default, enforced by one setting, which is kept', () => {
  const read = (context: Record<string, unknown>) =>
    settingsFromContext(new App({ outdir: scratchOutdir(), context }).node);
  expect(read({}).threatProtection).toBe('audit');
  expect(read({ stage: 'staging' }).threatProtection).toBe('audit');
  expect(read({ stage: 'ci', disposable: 'true' }).threatProtection).toBe('audit');
  const enforced = read({ stage: 'staging', threatProtection: 'enforced' });
  expect(enforced.threatProtection).toBe('enforced');
  // A later plain deploy reads the kept context back (stage/deployed-settings.ts).
  const kept = settingsToContext(enforced, { disposable: false, alarmEmail: undefined });
  expect(read({ ...kept, stage: 'staging' }).threatProtection).toBe('enforced');
});

/** Issue 54: the page's edges, SES mail and own domain, read, checked and kept. */
test('priceClass, sesFromAddress and the staff page domain round-trip through the kept settings', () => {
  const read = (context: Record<string, unknown>) =>
    settingsFromContext(new App({ outdir: scratchOutdir(), context }).node);
  const given = {
    priceClass: 'PriceClass_All',
    sesFromAddress: 'staff-access@makati-forex.example.com',
    staffPageDomain: 'staff.makati-forex.example.com',
    staffPageCertificateArn: CERTIFICATE_ARN,
  };
  const settings = read(given);
  expect(settings).toMatchObject({
    priceClass: 'PriceClass_All',
    sesFromAddress: 'staff-access@makati-forex.example.com',
    staffPageDomain: { name: 'staff.makati-forex.example.com', certificateArn: CERTIFICATE_ARN },
  });
  const kept = settingsToContext(settings, { disposable: false, alarmEmail: undefined });
  expect(kept).toMatchObject(given);
  expect(read(kept)).toEqual(settings);
  // Empty on the command line ends a kept one, as `-c alarmEmail=` does.
  const ended = read({
    ...kept,
    sesFromAddress: '',
    staffPageDomain: '',
    staffPageCertificateArn: '',
  });
  expect(ended.sesFromAddress).toBeUndefined();
  expect(ended.staffPageDomain).toBeUndefined();
  expect(
    Object.keys(settingsToContext(ended, { disposable: false, alarmEmail: undefined })),
  ).toEqual(
    expect.not.arrayContaining(['sesFromAddress', 'staffPageDomain', 'staffPageCertificateArn']),
  );
});

test('context values reach every function environment', () => {
  const functions = resourcesUnder(s.json, 'AWS::Lambda::Function', 'Api');
  expect(functions.length).toBeGreaterThan(0);
  for (const [, fn] of functions) {
    expect(fn.Properties!.Environment.Variables).toMatchObject({
      SIGNATURE_URL_TTL_SECONDS: '900',
      DISPLAY_TIME_ZONE: 'Asia/Manila',
      READ_BUDGET_CUSTOMERS: '12',
      READ_BUDGET_TRANSACTIONS: '34',
      READ_BUDGET_WINDOW_SECONDS: '60',
    });
  }
});

test('without read-budget context the functions get the SPEC 8 defaults', () => {
  const defaults = synthesize();
  for (const [, fn] of resourcesUnder(defaults.json, 'AWS::Lambda::Function', 'Api')) {
    expect(fn.Properties!.Environment.Variables).toMatchObject({
      READ_BUDGET_CUSTOMERS: '60',
      READ_BUDGET_TRANSACTIONS: '300',
      READ_BUDGET_WINDOW_SECONDS: '300',
    });
  }
});

test("a CORS allowlist adds exactly those origins to the staff page's, GET only", () => {
  const [, api] = onlyResource(s.json, 'AWS::ApiGatewayV2::Api');
  const distribution = s.logicalId(s.stack.staffApp.distribution);
  expect(api.Properties!.CorsConfiguration).toMatchObject({
    AllowOrigins: [
      { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution, 'DomainName'] }]] },
      'https://backoffice.example.com',
      'https://ops.example.com:8443',
    ],
    AllowMethods: ['GET'],
    AllowHeaders: ['authorization'],
  });
  expect(api.Properties!.CorsConfiguration.AllowCredentials).not.toBe(true);
});

test.each([
  [{ signatureUrlTtlSeconds: 0 }, /signatureUrlTtlSeconds/],
  [{ signatureUrlTtlSeconds: 3601 }, /signatureUrlTtlSeconds/],
  [{ signatureUrlTtlSeconds: '5m' }, /signatureUrlTtlSeconds/],
  [{ displayTimeZone: 'Mars/Olympus' }, /displayTimeZone/],
  [{ currency: 'peso' }, /currency must be an ISO 4217 currency code of three capital letters/],
  [
    { businessName: '' },
    /businessName must be a name of 1 to 100 characters on one line, not starting or ending with a space, got: ""/,
  ],
  [{ businessName: ' Currency Exchange' }, /businessName must be/],
  [{ businessName: 'Currency\nExchange' }, /businessName must be/],
  [{ businessName: 'x'.repeat(101) }, /businessName must be a name of 1 to 100 characters/],
  [{ corsAllowOrigins: '*' }, /corsAllowOrigins/],
  [{ corsAllowOrigins: ['https://*.example.com'] }, /corsAllowOrigins/],
  [{ corsAllowOrigins: 'https://app.example.com/' }, /corsAllowOrigins/],
  [{ corsAllowOrigins: 'app.example.com' }, /corsAllowOrigins/],
  [{ corsAllowOrigins: '["https://app.example.com"' }, /corsAllowOrigins must be a JSON array/],
  [{ readBudgetCustomers: '0' }, /readBudgetCustomers/],
  [{ readBudgetTransactions: '1.5' }, /readBudgetTransactions/],
  [{ readBudgetTransactions: 100_001 }, /readBudgetTransactions/],
  [{ readBudgetWindowSeconds: '3601' }, /readBudgetWindowSeconds/],
  [{ readBudgetWindowSeconds: 'five minutes' }, /readBudgetWindowSeconds/],
  [{ importConcurrency: '0' }, /importConcurrency/],
  [{ importFileCheck: 'no' }, /importFileCheck must be true or false/],
  [{ importConcurrency: '2.5' }, /importConcurrency/],
  [{ importConcurrency: 1001 }, /importConcurrency must be a whole number from 1 to 1000/],
  [
    { tableWarmWritesPerSecond: '3999' },
    /tableWarmWritesPerSecond must be a whole number from 4000 to 40000/,
  ],
  [{ tableWarmWritesPerSecond: 40_001 }, /tableWarmWritesPerSecond/],
  [{ tableWarmWritesPerSecond: '30k' }, /tableWarmWritesPerSecond/],
  [{ threatProtection: 'off' }, /threatProtection must be audit or enforced, got: "off"/],
  [{ threatProtection: 'ENFORCED' }, /threatProtection must be audit or enforced/],
  [
    { priceClass: '100' },
    /priceClass must be PriceClass_100, PriceClass_200, PriceClass_All, got: "100"/,
  ],
  [{ priceClass: 'PRICE_CLASS_200' }, /priceClass must be/],
  [{ sesFromAddress: 'staff-access' }, /sesFromAddress must be an e-mail address/],
  [{ sesFromAddress: 'a b@example.com' }, /sesFromAddress must be an e-mail address/],
  [
    { staffPageDomain: 'staff.example.com' },
    /staffPageDomain and staffPageCertificateArn go together/,
  ],
  [{ staffPageCertificateArn: CERTIFICATE_ARN }, /go together: give both, or neither/],
  [
    { staffPageDomain: 'https://staff.example.com', staffPageCertificateArn: CERTIFICATE_ARN },
    /staffPageDomain must be a lower-case host name/,
  ],
  [
    { staffPageDomain: 'Staff.Example.com', staffPageCertificateArn: CERTIFICATE_ARN },
    /staffPageDomain must be/,
  ],
  [
    { staffPageDomain: 'd111111abcdef8.cloudfront.net', staffPageCertificateArn: CERTIFICATE_ARN },
    /staffPageDomain must be .*not under cloudfront\.net/,
  ],
  [
    {
      staffPageDomain: 'staff.example.com',
      staffPageCertificateArn: CERTIFICATE_ARN.replace('us-east-1', 'ap-southeast-1'),
    },
    /staffPageCertificateArn must be the ARN of an ACM certificate in us-east-1/,
  ],
])('synth refuses context %j', (context, message) => {
  expect(() =>
    createApp({ outdir: scratchOutdir(), context: { ...CDK_JSON_CONTEXT, ...context } }),
  ).toThrow(message);
});

test('the business name is kept as deployed, and read back as given', () => {
  const named = settingsFromContext(
    new App({ outdir: scratchOutdir(), context: { businessName: 'Makati Forex Corp.' } }).node,
  );
  expect(named.businessName).toBe('Makati Forex Corp.');
  expect(settingsToContext(named, { disposable: false, alarmEmail: undefined })).toMatchObject({
    businessName: 'Makati Forex Corp.',
  });
});
