import { ConfigError } from '../../core/env.ts';
import { displayTimeEnv } from '../../core/function-env.ts';
import { zoneOffsets } from '../../core/times.ts';
import { loadConfig } from '../../functions/shared/config.ts';

const base = {
  TABLE_NAME: 't',
  BUCKET_NAME: 'b',
  AWS_REGION: 'us-east-1',
  CURSOR_KEY: 'k'.repeat(32),
};

describe('configuration', () => {
  test('defaults: 300 s URLs shown in Asia/Manila (SPEC 3.5)', () => {
    expect(loadConfig(base)).toMatchObject({
      signatureUrlTtlSeconds: 300,
      displayTimeZone: 'Asia/Manila',
    });
  });

  test.each(['TABLE_NAME', 'BUCKET_NAME', 'AWS_REGION', 'CURSOR_KEY'])(
    'fails clearly without %s',
    (name) => {
      expect(() => loadConfig({ ...base, [name]: undefined })).toThrow(
        new ConfigError(`Missing required environment variable ${name}`),
      );
    },
  );

  test("the zone's table as the stage writes it is taken; another zone's is refused", () => {
    expect(loadConfig({ ...base, ...displayTimeEnv('Asia/Manila') })).toMatchObject({
      displayTimeZone: 'Asia/Manila',
      displayTimeZoneOffsets: zoneOffsets('Asia/Manila'),
    });
    // A zone with daylight saving has none: ICU serves it.
    expect(displayTimeEnv('America/New_York')).toEqual({ DISPLAY_TIME_ZONE: 'America/New_York' });
    const tokyo = displayTimeEnv('Asia/Tokyo').DISPLAY_TIME_ZONE_OFFSETS;
    expect(() => loadConfig({ ...base, DISPLAY_TIME_ZONE_OFFSETS: tokyo })).toThrow(
      new ConfigError(
        "DISPLAY_TIME_ZONE_OFFSETS must be the table of Asia/Manila's offsets the stage computes",
      ),
    );
  });

  test('a cursor secret shorter than 32 characters is refused, never used', () => {
    expect(() => loadConfig({ ...base, CURSOR_KEY: 'k'.repeat(31) })).toThrow(
      new ConfigError('CURSOR_KEY must be at least 32 characters long'),
    );
  });

  test.each(['0', '3601', '1.5', 'abc', '-5'])('SIGNATURE_URL_TTL_SECONDS=%p is refused', (ttl) => {
    expect(() => loadConfig({ ...base, SIGNATURE_URL_TTL_SECONDS: ttl })).toThrow(ConfigError);
  });

  test('a TTL up to an hour and an IANA zone are taken', () => {
    expect(
      loadConfig({ ...base, SIGNATURE_URL_TTL_SECONDS: '3600', DISPLAY_TIME_ZONE: 'Asia/Manila' }),
    ).toMatchObject({
      signatureUrlTtlSeconds: 3600,
      displayTimeZone: 'Asia/Manila',
    });
    expect(() => loadConfig({ ...base, DISPLAY_TIME_ZONE: 'Mars/Olympus' })).toThrow(ConfigError);
  });
});
