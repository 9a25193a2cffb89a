/**
 * The staff page of a stage (lib/staff-app.ts): a private bucket read only by the stage's
 * CloudFront distribution (origin access control), the page's security headers on every
 * answer, its address as StaffAppUrl, and config.json naming the stage's API and app client.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { securityHeaders } from '../../../staff-app/security-headers.ts';
import { CLOUDFRONT_LOGS_REGIONS } from '../../../lib/staff-app.ts';
import { DEFAULT_BUSINESS_NAME } from '../../../stage/settings.ts';
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import {
  DISPOSABLE_DEV_CONTEXT,
  EVERY_OPTION_CONTEXT,
  bothStages,
  onlyResource,
  resourcesOf,
  synthesize,
  type Json,
  type Synthesized,
} from '../synth.ts';

/** A file the page's deployment puts in its bucket, as synthesized (an asset with markers). */
function deployedFile(s: Synthesized, name: string): string {
  const [, deployment] = onlyResource(s.json, 'Custom::CDKBucketDeployment');
  const keys = deployment.Properties!.SourceObjectKeys as string[];
  const dirs = keys.map((key) => join(s.outdir, `asset.${key.replace(/\.zip$/, '')}`, name));
  const found = dirs.filter((file) => existsSync(file));
  expect(found).toHaveLength(1);
  return readFileSync(found[0]!, 'utf8');
}

/** The distribution's viewer-request function, run as CloudFront runs it. */
function viewerRequest(s: Synthesized): (event: Json) => Json {
  const [, fn] = onlyResource(s.json, 'AWS::CloudFront::Function');
  return new Function(`${fn.Properties!.FunctionCode}; return handler;`)() as (e: Json) => Json;
}

/** A template condition's value in a region, as CloudFormation evaluates it. */
function inCondition(json: Json, name: string, region: string): boolean {
  const value = (x: Json): unknown => (x?.Ref === 'AWS::Region' ? region : x);
  const evaluate = (c: Json): boolean => {
    if (c['Fn::Or']) return (c['Fn::Or'] as Json[]).some(evaluate);
    if (c['Fn::And']) return (c['Fn::And'] as Json[]).every(evaluate);
    if (c['Fn::Not']) return !evaluate(c['Fn::Not'][0]);
    if (c['Fn::Equals']) return value(c['Fn::Equals'][0]) === value(c['Fn::Equals'][1]);
    if (c.Condition) return evaluate(json.Conditions[c.Condition]);
    throw new Error(`unknown condition ${JSON.stringify(c)}`);
  };
  return evaluate(json.Conditions[name]);
}

describe.each(bothStages())('%s', (_name, get) => {
  /**
   * CloudFront's invalidation waiter fails now and then ("Waiter InvalidationCompleted failed",
   * aws-cdk#15891), and the page's deployment is the last resource a create makes.
   */
  test("the page's deployment does not wait for CloudFront's invalidation", () => {
    const deployments = resourcesOf(get().json, 'Custom::CDKBucketDeployment');
    expect(deployments.map(([, d]) => d.Properties!.WaitForDistributionInvalidation)).toEqual([
      false,
    ]);
  });

  test('the root redirects to the page, and the access logs go to their own bucket', () => {
    const s = get();
    const [, distribution] = onlyResource(s.json, 'AWS::CloudFront::Distribution');
    const config = distribution.Properties!.DistributionConfig;
    expect(config.DefaultRootObject).toBe('app/index.html');
    const logs = s.logicalId(s.stack.staffApp.node.findChild('LogsBucket') as never);
    const condition = s.logicalId(
      s.stack.staffApp.node.findChild('CloudFrontLogsDelivered') as never,
    );
    expect(config.Logging).toEqual({
      'Fn::If': [
        condition,
        { Bucket: { 'Fn::GetAtt': [logs, 'RegionalDomainName'] }, IncludeCookies: false },
        { Ref: 'AWS::NoValue' },
      ],
    });
    // Logs wherever CloudFront delivers them: the regions enabled by default, none of the opt-in
    // ones (the newest two included) and none AWS opens later.
    const delivered = (region: string) => inCondition(s.json, condition, region);
    expect(CLOUDFRONT_LOGS_REGIONS.map(delivered)).toEqual(CLOUDFRONT_LOGS_REGIONS.map(() => true));
    expect(CLOUDFRONT_LOGS_REGIONS).toHaveLength(17);
    expect(CLOUDFRONT_LOGS_REGIONS).toEqual(
      expect.arrayContaining(['ap-southeast-1', 'us-east-1', 'eu-west-1', 'sa-east-1']),
    );
    const optIn = ['af-south-1', 'ap-east-1', 'ap-east-2', 'ap-southeast-5', 'ap-southeast-6'];
    expect([...optIn, 'mx-central-1', 'xx-future-1'].map(delivered)).toEqual(
      Array(optIn.length + 2).fill(false),
    );
    const handler = viewerRequest(s);
    expect(handler({ request: { uri: '/' } })).toMatchObject({
      statusCode: 302,
      headers: { location: { value: '/app/' } },
    });
    expect(handler({ request: { uri: '/app/' } })).toEqual({ uri: '/app/index.html' });
  });

  test('the bucket is private and only the distribution reads it, through origin access control', () => {
    const s = get();
    const bucket = s.logicalId(s.stack.staffApp.bucket);
    expect(s.json.Resources[bucket]!.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    const [oacId] = onlyResource(s.json, 'AWS::CloudFront::OriginAccessControl');
    const [distributionId, distribution] = onlyResource(s.json, 'AWS::CloudFront::Distribution');
    const config = distribution.Properties!.DistributionConfig;
    expect(config.Origins).toHaveLength(1);
    expect(config.Origins[0].OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');

    // The bucket policy lets CloudFront (this distribution only) get objects, and nobody else in.
    const statements = resourcesOf(s.json, 'AWS::S3::BucketPolicy')
      .filter(([, p]) => JSON.stringify(p.Properties!.Bucket).includes(bucket))
      .flatMap(([, p]) => p.Properties!.PolicyDocument.Statement as Json[]);
    // (A disposable stage adds CDK's emptying of the bucket on delete, which reads no object.)
    const allows = statements.filter(
      (st) => st.Effect === 'Allow' && JSON.stringify(st.Action).includes('s3:GetObject'),
    );
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({
      Action: 's3:GetObject',
      Principal: { Service: 'cloudfront.amazonaws.com' },
    });
    expect(JSON.stringify(allows[0].Condition)).toContain(distributionId);
  });

  test('every answer carries the page security headers: CSP, HSTS, nosniff, DENY, no referrer', () => {
    const s = get();
    const [policyId, policy] = onlyResource(s.json, 'AWS::CloudFront::ResponseHeadersPolicy');
    const [, distribution] = onlyResource(s.json, 'AWS::CloudFront::Distribution');
    expect(
      distribution.Properties!.DistributionConfig.DefaultCacheBehavior.ResponseHeadersPolicyId,
    ).toEqual({
      Ref: policyId,
    });
    const headers = policy.Properties!.ResponseHeadersPolicyConfig;
    const csp = JSON.stringify(
      headers.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy,
    );
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
      "form-action 'none'",
      "base-uri 'none'",
    ])
      expect(csp).toContain(directive);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\bdata:/);
    expect(csp).toContain("connect-src 'self' https://*.execute-api.");
    expect(csp).toContain('https://cognito-idp.');
    // Presigned signatures and ID photos load from the files bucket, and only from there.
    expect(csp).toContain(
      `img-src 'self' https://",{"Ref":"${s.logicalId(s.stack.data.bucket)}"},".s3.`,
    );
    expect(headers.SecurityHeadersConfig).toMatchObject({
      StrictTransportSecurity: {
        AccessControlMaxAgeSec: 63072000,
        IncludeSubdomains: true,
        Override: true,
      },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
    });
    // The rest of the list the local gateway sends too (one list: staff-app/security-headers.ts).
    const local = securityHeaders({ api: 'a', cognito: 'c', files: 'f' });
    expect(headers.CustomHeadersConfig.Items).toEqual(
      ['permissions-policy', 'cross-origin-opener-policy'].map((header) => ({
        Header: header,
        Value: local[header],
        Override: true,
      })),
    );
  });

  test("index.html narrows the header's connect-src to this stage's API, written at deploy time", () => {
    const s = get();
    const [, deployment] = onlyResource(s.json, 'Custom::CDKBucketDeployment');
    const keys = deployment.Properties!.SourceObjectKeys as string[];
    const index = keys.findIndex((key) =>
      existsSync(join(s.outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.html')),
    );
    expect(index).toBeGreaterThanOrEqual(0);
    const html = readFileSync(
      join(s.outdir, `asset.${keys[index]!.replace(/\.zip$/, '')}`, 'index.html'),
      'utf8',
    );
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
    const markers = (deployment.Properties!.SourceMarkers as Record<string, Json>[])[index]!;
    const api = Object.keys(markers).find((marker) =>
      JSON.stringify(markers[marker]).includes(
        `"${s.logicalId(s.stack.api.httpApi)}","ApiEndpoint"`,
      ),
    );
    expect(api).toBeDefined();
    expect(policy).toMatch(new RegExp(`^connect-src 'self' ${api} https://cognito-idp\\.\\S+$`));
  });

  test("StaffAppUrl is the distribution's /app/, and config.json names this stage's API and app client", () => {
    const s = get();
    const distribution = s.logicalId(s.stack.staffApp.distribution);
    expect(s.json.Outputs!.StaffAppUrl!.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution, 'DomainName'] }, '/app/']],
    });
    const [, deployment] = onlyResource(s.json, 'Custom::CDKBucketDeployment');
    // config.json's values are filled in at deploy time from these resources.
    const markers = JSON.stringify(deployment.Properties!.SourceMarkers);
    expect(markers).toContain(s.logicalId(s.stack.api.httpApi));
    expect(markers).toContain(s.logicalId(s.stack.identity.client));
    expect(deployment.Properties!.DestinationBucketKeyPrefix).toBe('app/');
    expect(deployment.Properties!.DistributionPaths).toEqual(['/app/*']);
  });

  test("config.json carries the business's name and currency, as the stage's settings give them", () => {
    const config = JSON.parse(deployedFile(get(), 'config.json')) as Record<string, unknown>;
    expect(config).toMatchObject({ businessName: DEFAULT_BUSINESS_NAME, currency: 'PHP' });
  });
});

test('-c businessName reaches the page, as written (a printed KYC record heads with it)', () => {
  const s = synthesize({ context: { businessName: 'Makati Forex & Remittance Corp.' } });
  const config = JSON.parse(deployedFile(s, 'config.json')) as Record<string, unknown>;
  expect(config.businessName).toBe('Makati Forex & Remittance Corp.');
});

/** The AwsSolutions rules acknowledged on a construct. */
function acknowledged(construct: IConstruct): string[] {
  return construct.node.metadata
    .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((m) => Object.keys(m.data as Record<string, string>));
}

/** Issue 54: staff in Manila are served from edges in Asia, which price class 100 has none of. */
test('the page is served by price class 200 (edges in the Philippines) unless -c priceClass says otherwise', () => {
  const priceClass = (s: Synthesized) =>
    onlyResource(s.json, 'AWS::CloudFront::Distribution')[1].Properties!.DistributionConfig
      .PriceClass as string;
  expect(priceClass(synthesize())).toBe('PriceClass_200');
  expect(priceClass(synthesize({ context: DISPOSABLE_DEV_CONTEXT }))).toBe('PriceClass_200');
  expect(priceClass(synthesize({ context: EVERY_OPTION_CONTEXT }))).toBe('PriceClass_All');
});

/**
 * Issue 54 (decision 27): on *.cloudfront.net CloudFront accepts TLS 1.0 at the viewer; on the
 * business's own domain and certificate the policy is TLS 1.2, and the page's origin is that
 * domain everywhere it is named.
 */
test("the staff page on the business's own domain: its certificate, TLS 1.2, and its origin in CORS and StaffAppUrl", () => {
  const s = synthesize({ context: EVERY_OPTION_CONTEXT });
  const [, distribution] = onlyResource(s.json, 'AWS::CloudFront::Distribution');
  const config = distribution.Properties!.DistributionConfig;
  expect(config.Aliases).toEqual([EVERY_OPTION_CONTEXT.staffPageDomain]);
  expect(config.ViewerCertificate).toEqual({
    AcmCertificateArn: EVERY_OPTION_CONTEXT.staffPageCertificateArn,
    MinimumProtocolVersion: 'TLSv1.2_2021',
    SslSupportMethod: 'sni-only',
  });
  const origin = `https://${EVERY_OPTION_CONTEXT.staffPageDomain}`;
  expect(s.stack.staffApp.origin).toBe(origin);
  expect(s.json.Outputs!.StaffAppUrl!.Value).toBe(`${origin}/app/`);
  const [, api] = onlyResource(s.json, 'AWS::ApiGatewayV2::Api');
  expect(api.Properties!.CorsConfiguration.AllowOrigins).toEqual([origin]);
  // The distribution's own name, where CloudFront accepts TLS 1.0, sends the browser to the domain.
  const domain = EVERY_OPTION_CONTEXT.staffPageDomain;
  expect(
    viewerRequest(s)({
      request: { uri: '/app/x.js', headers: { host: { value: 'd1.cloudfront.net' } } },
    }),
  ).toMatchObject({
    statusCode: 301,
    headers: { location: { value: `https://${domain}/app/x.js` } },
  });
  expect(
    viewerRequest(s)({ request: { uri: '/app/', headers: { host: { value: domain } } } }),
  ).toEqual({
    uri: '/app/index.html',
    headers: { host: { value: domain } },
  });
  // CFR4 holds there: nothing acknowledges it.
  expect(acknowledged(s.stack.staffApp.distribution)).not.toContainEqual(
    expect.stringContaining('AwsSolutions-CFR4'),
  );

  // Without the setting: CloudFront's own name and certificate, and CFR4 acknowledged for it.
  const plain = synthesize();
  const [, plainDistribution] = onlyResource(plain.json, 'AWS::CloudFront::Distribution');
  expect(plainDistribution.Properties!.DistributionConfig.Aliases).toBeUndefined();
  expect(plainDistribution.Properties!.DistributionConfig.ViewerCertificate).toBeUndefined();
  expect(acknowledged(plain.stack.staffApp.distribution)).toContainEqual(
    expect.stringContaining('AwsSolutions-CFR4'),
  );
});
