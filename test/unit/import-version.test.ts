/**
 * An import's version (core/import-version.ts): a later upload's compares higher as a string, the
 * same upload always makes the same one, and the horizon covers every way an import can write late.
 */
import fc from 'fast-check';
import {
  IMPORT_VERSION_LENGTH,
  ImportVersionError,
  assertWithinHorizon,
  importVersion,
  sameSecond,
  tombstoneExpiry,
  uploadedAtMs,
} from '../../core/import-version.ts';
import { IMPORT_WRITE_HORIZON_DAYS, TOMBSTONE_DAYS } from '../../core/retention.ts';
import { IMPORT_TIMEOUT_SECONDS } from '../../import/steps/step.ts';

const DAY_S = 24 * 60 * 60;
const second = fc.integer({ min: 0, max: 2 ** 36 });
const sequencer = fc.bigInt({ min: 0n, max: 16n ** 20n }).map((n) => n.toString(16).toUpperCase());
const importId = fc.stringMatching(/^[0-9a-f]{32}$/);
const upload = fc.record({ second, sequencer, importId });
const versionOf = (u: { second: number; sequencer: string; importId: string }) =>
  importVersion({
    uploadedAt: new Date(u.second * 1000).toISOString(),
    sequencer: u.sequencer,
    importId: u.importId,
  });

test('a later upload, or a later sequencer within the same second, has the higher version', () => {
  fc.assert(
    fc.property(upload, upload, (a, b) => {
      const [va, vb] = [versionOf(a), versionOf(b)];
      expect(va).toHaveLength(IMPORT_VERSION_LENGTH);
      if (a.second !== b.second) expect(va < vb).toBe(a.second < b.second);
      else if (BigInt(`0x${a.sequencer}`) !== BigInt(`0x${b.sequencer}`))
        expect(va < vb).toBe(BigInt(`0x${a.sequencer}`) < BigInt(`0x${b.sequencer}`));
      else if (a.importId.slice(0, 12) !== b.importId.slice(0, 12)) expect(va).not.toBe(vb);
      expect(sameSecond(va, vb)).toBe(a.second === b.second);
      expect(uploadedAtMs(va)).toBe(a.second * 1000);
    }),
    { numRuns: 500 },
  );
});

test('the same upload makes the same version every time; milliseconds and case do not count', () => {
  const at = '2026-11-27T21:00:00Z';
  const id = 'ab'.repeat(16);
  const v = importVersion({ uploadedAt: at, sequencer: '0055AED6DCD90281E5', importId: id });
  expect(
    importVersion({
      uploadedAt: '2026-11-27T21:00:00.999Z',
      sequencer: '55aed6dcd90281e5',
      importId: id,
    }),
  ).toBe(v);
  expect(v).toBe('0tp6ic00000000055AED6DCD90281E5abababababab');
  // An event without a sequencer (none, or null from the rule's input) ranks as zero.
  expect(importVersion({ uploadedAt: at, sequencer: null, importId: id })).toBe(
    importVersion({ uploadedAt: at, importId: id }),
  );
});

test('what is not a time, a sequencer or an import id is refused, saying which', () => {
  const id = 'ab'.repeat(16);
  expect(() => importVersion({ uploadedAt: 'yesterday', importId: id })).toThrow(
    new ImportVersionError(`the upload's time "yesterday" is not a time with its zone`),
  );
  // Without a zone the same text is another instant on another machine.
  expect(() => importVersion({ uploadedAt: '2026-11-27T21:00:00', importId: id })).toThrow(
    /"2026-11-27T21:00:00" is not a time with its zone/,
  );
  // A loose form Date.parse takes (as 2001-01-01) is not S3's.
  expect(() => importVersion({ uploadedAt: '1 Z', importId: id })).toThrow(
    /"1 Z" is not a time with its zone/,
  );
  expect(importVersion({ uploadedAt: '2026-11-28T05:00:00+08:00', importId: id })).toBe(
    importVersion({ uploadedAt: '2026-11-27T21:00:00Z', importId: id }),
  );
  // Past what 7 base-36 digits hold, refused rather than a longer version that compares wrong.
  expect(() => importVersion({ uploadedAt: '+100000-01-01T00:00:00Z', importId: id })).toThrow(
    /is too late/,
  );
  expect(() =>
    importVersion({ uploadedAt: '2026-11-27T21:00:00Z', sequencer: 'XYZ', importId: id }),
  ).toThrow(/S3's sequencer "XYZ" is not a hex number/);
  expect(() =>
    importVersion({ uploadedAt: '2026-11-27T21:00:00Z', sequencer: '1'.repeat(25), importId: id }),
  ).toThrow(/at most 24 digits/);
});

test("the horizon covers S3's and EventBridge's retries, the workflow time limit and the redrive window", () => {
  const s3ToEventBridgeRetrySeconds = DAY_S;
  const eventBridgeRetrySeconds = DAY_S;
  const redriveSeconds = 14 * DAY_S;
  const longest =
    s3ToEventBridgeRetrySeconds + eventBridgeRetrySeconds + IMPORT_TIMEOUT_SECONDS + redriveSeconds;
  expect(IMPORT_WRITE_HORIZON_DAYS * DAY_S).toBeGreaterThanOrEqual(longest);
  // Rounded up to whole days, not more.
  expect(IMPORT_WRITE_HORIZON_DAYS).toBe(Math.ceil(longest / DAY_S));
  // A tombstone outlives every earlier import's horizon.
  expect(TOMBSTONE_DAYS).toBeGreaterThan(IMPORT_WRITE_HORIZON_DAYS);
});

test('an import writes up to its horizon and not after; its tombstones outlive it', () => {
  const put = Date.UTC(2026, 10, 1);
  const v = importVersion({ uploadedAt: new Date(put).toISOString(), importId: 'c'.repeat(32) });
  expect(() =>
    assertWithinHorizon(v, put + IMPORT_WRITE_HORIZON_DAYS * DAY_S * 1000),
  ).not.toThrow();
  expect(() => assertWithinHorizon(v, put + IMPORT_WRITE_HORIZON_DAYS * DAY_S * 1000 + 1)).toThrow(
    `the file was put at 2026-11-01T00:00:00.000Z, more than ${IMPORT_WRITE_HORIZON_DAYS} days ago: deletions are remembered only that long, so nothing of it is written; put the file again to import it`,
  );
  expect(tombstoneExpiry(v)).toBe(put / 1000 + TOMBSTONE_DAYS * DAY_S);
});
