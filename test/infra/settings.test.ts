/** Deploy-time settings from CDK context: they reach the functions and CORS, and bad ones stop synth. */
import { App } from 'aws-cdk-lib';
import { createApp } from '../../lib/app';
import { DEFAULT_SETTINGS, settingsFromContext } from '../../lib/settings';
import { CDK_JSON_CONTEXT, onlyResource, resourcesOf, synthesize, type Synthesized } from './synth';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({
    context: {
      signatureUrlTtlSeconds: '900',
      displayTimeZone: 'Asia/Manila',
      corsAllowOrigins: 'https://backoffice.example.com, https://ops.example.com:8443',
    },
  });
});
afterAll(() => s?.cleanup());

test('cdk.json holds the documented defaults: TTL 300 s, UTC, no CORS', () => {
  expect(settingsFromContext(new App({ context: CDK_JSON_CONTEXT }).node)).toEqual(
    DEFAULT_SETTINGS,
  );
  expect(settingsFromContext(new App().node)).toEqual({
    signatureUrlTtlSeconds: 300,
    displayTimeZone: 'UTC',
    corsAllowOrigins: [],
  });
});

test('context values reach every function environment', () => {
  const functions = resourcesOf(s.json, 'AWS::Lambda::Function');
  expect(functions.length).toBeGreaterThan(0);
  for (const [, fn] of functions) {
    expect(fn.Properties!.Environment.Variables).toMatchObject({
      SIGNATURE_URL_TTL_SECONDS: '900',
      DISPLAY_TIME_ZONE: 'Asia/Manila',
    });
  }
});

test('a CORS allowlist enables CORS for exactly those origins, GET only', () => {
  const [, api] = onlyResource(s.json, 'AWS::ApiGatewayV2::Api');
  expect(api.Properties!.CorsConfiguration).toMatchObject({
    AllowOrigins: ['https://backoffice.example.com', 'https://ops.example.com:8443'],
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
  [{ corsAllowOrigins: '*' }, /corsAllowOrigins/],
  [{ corsAllowOrigins: ['https://*.example.com'] }, /corsAllowOrigins/],
  [{ corsAllowOrigins: 'https://app.example.com/' }, /corsAllowOrigins/],
  [{ corsAllowOrigins: 'app.example.com' }, /corsAllowOrigins/],
])('synth refuses context %j', (context, message) => {
  expect(() => createApp({ context: { ...CDK_JSON_CONTEXT, ...context } })).toThrow(message);
});
