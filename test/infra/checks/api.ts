/** The HTTP API: authorizer on every route, routes from core/routes.ts, throttling, access logs. */
import { routes } from '../../../core/routes.ts';
import { ACCESS_LOG_FIELDS, DEFAULT_THROTTLE } from '../../../lib/api.ts';
import { onlyResource, resourcesOf, synthesize, type Synthesized } from '../synth.ts';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

test('every route requires the Cognito JWT authorizer: issuer = the user pool, audience = the app client only', () => {
  const poolId = s.logicalId(s.stack.identity.userPool);
  const clientId = s.logicalId(s.stack.identity.client);
  const [authorizerId, authorizer] = onlyResource(s.json, 'AWS::ApiGatewayV2::Authorizer');
  expect(authorizer.Properties).toMatchObject({
    AuthorizerType: 'JWT',
    IdentitySource: ['$request.header.Authorization'],
  });
  expect(authorizer.Properties!.JwtConfiguration).toEqual({
    Audience: [{ Ref: clientId }],
    Issuer: {
      'Fn::Join': [
        '',
        ['https://cognito-idp.', { Ref: 'AWS::Region' }, '.amazonaws.com/', { Ref: poolId }],
      ],
    },
  });

  const apiRoutes = resourcesOf(s.json, 'AWS::ApiGatewayV2::Route');
  expect(apiRoutes.length).toBeGreaterThan(0);
  for (const [, route] of apiRoutes) {
    expect(route.Properties).toMatchObject({
      AuthorizationType: 'JWT',
      AuthorizerId: { Ref: authorizerId },
    });
  }
});

test("the synthesized routes are exactly core/routes.ts, each integrated with its entity's function", () => {
  const apiRoutes = resourcesOf(s.json, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties!);
  expect(apiRoutes.map((r) => r.RouteKey).sort()).toEqual(
    routes.map((r) => `${r.method} ${r.path}`).sort(),
  );

  const integrations = Object.fromEntries(resourcesOf(s.json, 'AWS::ApiGatewayV2::Integration'));
  for (const route of routes) {
    const apiRoute = apiRoutes.find((r) => r.RouteKey === `${route.method} ${route.path}`)!;
    const integrationId = (apiRoute.Target['Fn::Join'][1] as unknown[])[1] as { Ref: string };
    const integration = integrations[integrationId.Ref]!.Properties!;
    const fn = s.stack.api.functions.get(route.function.id)!;
    expect(integration).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [s.logicalId(fn), 'Arn'] },
    });
  }
});

test('the only stage is $default: auto-deployed, throttled by default route settings', () => {
  const [, stage] = onlyResource(s.json, 'AWS::ApiGatewayV2::Stage');
  expect(stage.Properties).toMatchObject({
    StageName: '$default',
    AutoDeploy: true,
    DefaultRouteSettings: {
      ThrottlingRateLimit: DEFAULT_THROTTLE.rateLimit,
      ThrottlingBurstLimit: DEFAULT_THROTTLE.burstLimit,
    },
  });
  expect(DEFAULT_THROTTLE.rateLimit).toBeGreaterThan(0);
  expect(DEFAULT_THROTTLE.burstLimit).toBeGreaterThanOrEqual(DEFAULT_THROTTLE.rateLimit);
});

test('the stage writes JSON access logs with the request id to a log group with retention', () => {
  const [, stage] = onlyResource(s.json, 'AWS::ApiGatewayV2::Stage');
  const logGroupId = s.logicalId(s.stack.api.accessLogGroup);
  const settings = stage.Properties!.AccessLogSettings;
  expect(settings.DestinationArn).toEqual({ 'Fn::GetAtt': [logGroupId, 'Arn'] });
  const format = JSON.parse(settings.Format as string) as Record<string, string>;
  expect(format).toEqual(ACCESS_LOG_FIELDS);
  expect(format.requestId).toBe('$context.requestId');
  expect(format.status).toBe('$context.status');
  expect(s.json.Resources[logGroupId]!.Properties!.RetentionInDays).toBeGreaterThan(0);
});

test("CORS allows the stage's staff page and nothing else by default: GET, no credentials, Retry-After readable", () => {
  const [, api] = onlyResource(s.json, 'AWS::ApiGatewayV2::Api');
  expect(api.Properties).toMatchObject({ ProtocolType: 'HTTP' });
  const distribution = s.logicalId(s.stack.staffApp.distribution);
  expect(api.Properties!.CorsConfiguration).toEqual({
    AllowOrigins: [
      { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution, 'DomainName'] }]] },
    ],
    AllowMethods: ['GET'],
    AllowHeaders: ['authorization'],
    ExposeHeaders: ['retry-after'],
    MaxAge: 3600,
  });
  // API Gateway answers preflights itself: no OPTIONS route reaches the authorizer or a function.
  expect(
    resourcesOf(s.json, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties!.RouteKey),
  ).not.toContainEqual(expect.stringMatching(/^OPTIONS /));
});

test('the stack outputs ApiUrl, UserPoolId, UserPoolClientId, TableName, BucketName, FilesKeyArn, ImportBucketName, ImportKeyArn, ImportStateMachineArn, AlarmTopicArn, DeployedSettings and StaffAppUrl', () => {
  const outputs = s.json.Outputs ?? {};
  expect(Object.keys(outputs).sort()).toEqual(
    [
      'AlarmTopicArn',
      'ApiUrl',
      'BucketName',
      'DeployedSettings',
      'FilesKeyArn',
      'ImportBucketName',
      'ImportKeyArn',
      'ImportStateMachineArn',
      'StaffAppUrl',
      'TableName',
      'UserPoolClientId',
      'UserPoolId',
    ].sort(),
  );
  expect(outputs.ImportBucketName!.Value).toEqual({
    Ref: s.logicalId(s.stack.importDrop.bucket),
  });
  expect(outputs.UserPoolId!.Value).toEqual({ Ref: s.logicalId(s.stack.identity.userPool) });
  expect(outputs.UserPoolClientId!.Value).toEqual({ Ref: s.logicalId(s.stack.identity.client) });
  expect(outputs.TableName!.Value).toEqual({ Ref: s.logicalId(s.stack.data.table) });
  expect(outputs.BucketName!.Value).toEqual({ Ref: s.logicalId(s.stack.data.bucket) });
  expect(JSON.stringify(outputs.ApiUrl!.Value)).toContain(s.logicalId(s.stack.api.httpApi));
});

test('no resource has a hard-coded physical name', () => {
  const nameProperties = [
    'TableName',
    'BucketName',
    'FunctionName',
    'RoleName',
    'LogGroupName',
    'UserPoolName',
    'ClientName',
  ];
  for (const [id, resource] of Object.entries(s.json.Resources)) {
    for (const name of nameProperties) {
      // References (Ref, Fn::GetAtt) are fine, and so is a name made from the stack's own (the
      // workflow's log group must sit under /aws/vendedlogs/): each stage's differs. Any other
      // literal string is a hard-coded name.
      const value: unknown = resource.Properties?.[name];
      const fromStack = typeof value === 'string' && value.includes(s.stack.stackName);
      expect([id, name, fromStack ? 'from the stack name' : typeof value]).not.toEqual([
        id,
        name,
        'string',
      ]);
    }
  }
});
