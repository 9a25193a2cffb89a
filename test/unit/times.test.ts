import { jest } from '@jest/globals';
import {
  MAX_TABLE_CHANGES,
  createTimeCodec,
  parseZoneOffsets,
  wallTimeProblem,
  zoneOffsets,
} from '../../core/times.ts';

describe('times (SPEC 3.5)', () => {
  test('UTC shows as stored', () => {
    const utc = createTimeCodec('UTC');
    expect(utc.store('2023-09-15 10:01:02')).toBe('2023-09-15T10:01:02Z');
    expect(utc.display('2023-09-15T10:01:02Z')).toBe('2023-09-15 10:01:02');
  });

  test('a display zone is applied on import and undone on display', () => {
    const manila = createTimeCodec('Asia/Manila');
    expect(manila.store('2023-09-15 10:01:02')).toBe('2023-09-15T02:01:02Z');
    expect(manila.display('2023-09-15T02:01:02Z')).toBe('2023-09-15 10:01:02');
    expect(manila.display('2023-12-31T20:00:00Z')).toBe('2024-01-01 04:00:00');
  });

  test('a wall time skipped by daylight saving does not exist; a repeated one takes the first', () => {
    const ny = createTimeCodec('America/New_York');
    expect(ny.store('2023-03-12 02:30:00')).toBeUndefined();
    expect(ny.store('2023-11-05 01:30:00')).toBe('2023-11-05T05:30:00Z');
    expect(ny.display('2023-11-05T05:30:00Z')).toBe('2023-11-05 01:30:00');
  });

  test.each([
    '2023-02-30 00:00:00',
    '2023-09-15 24:00:00',
    '2023-09-15T10:01:02',
    '2023-9-15 10:01:02',
    '',
  ])('rejects %p', (wall) => expect(createTimeCodec('UTC').store(wall)).toBeUndefined());
});

describe('why a wall time cannot be imported (issue 30)', () => {
  test.each([
    ['2023-09-15 10:01:02', undefined],
    ['2023-03-12 02:30:00', undefined], // real; whether a zone skips it is the codec's to say
    ['2023-09-15T10:01:02Z', 'format'],
    ['2023-09-15 10:01', 'format'],
    ['2023-02-30 00:00:00', 'calendar'],
    ['2023-09-15 24:00:00', 'calendar'],
  ])('%p: %p', (wall, problem) => expect(wallTimeProblem(wall)).toBe(problem));
});

describe('prepare: the zone formatter made ahead of the first time shown, once', () => {
  afterEach(() => jest.restoreAllMocks());

  test('a zone: nothing made until prepare, then one formatter for every display', () => {
    const made = jest.spyOn(Intl, 'DateTimeFormat');
    const codec = createTimeCodec('Asia/Manila');
    expect(made).toHaveBeenCalledTimes(0);
    codec.prepare();
    expect(made).toHaveBeenCalledTimes(1);
    expect(codec.display('2024-01-01T00:00:00Z')).toBe('2024-01-01 08:00:00');
    codec.prepare();
    expect(made).toHaveBeenCalledTimes(1);
  });

  test('UTC, or a zone with its table: no formatter at all, to show or to read', () => {
    const manila = zoneOffsets('Asia/Manila');
    const made = jest.spyOn(Intl, 'DateTimeFormat');
    for (const codec of [createTimeCodec('UTC'), createTimeCodec('Asia/Manila', manila)]) {
      codec.prepare();
      const shown = codec.display('2024-01-01T00:00:00Z');
      expect(codec.store(shown)).toBe('2024-01-01T00:00:00Z');
    }
    expect(createTimeCodec('UTC').display('2024-01-01T00:00:00Z')).toBe('2024-01-01 00:00:00');
    expect(made).toHaveBeenCalledTimes(0);
  });
});

describe("a zone's table: the same times as ICU's, without ICU (issue 55)", () => {
  const HOUR = 3_600_000;
  /** Instants a quarter of an hour apart around each change, and one every 389 hours from 1970. */
  const instants = (offsets: readonly (readonly [number, number])[], until: number) => [
    ...offsets.flatMap(([start]) =>
      Array.from({ length: 200 }, (_, i) => start * 1000 + (i - 100) * (HOUR / 4)),
    ),
    ...Array.from({ length: (until * 1000) / (389 * HOUR) }, (_, i) => i * 389 * HOUR),
  ];

  test.each([
    'Asia/Manila',
    'Asia/Singapore',
    'Asia/Kolkata',
    'Asia/Kathmandu',
    'Asia/Hong_Kong',
    'Asia/Shanghai',
  ])('%s: every instant shown, and every wall time read, as ICU does', (zone) => {
    const table = zoneOffsets(zone)!;
    expect(table.offsets.length).toBeLessThanOrEqual(MAX_TABLE_CHANGES + 1);
    const fast = createTimeCodec(zone, table);
    const icu = createTimeCodec(zone);
    for (const at of instants(table.offsets, table.until).filter((t) => t >= 0)) {
      const stored = new Date(at).toISOString().slice(0, 19) + 'Z';
      const wall = icu.display(stored);
      expect(fast.display(stored)).toBe(wall);
      // The wall times a change skips or repeats too: an hour either side.
      for (const near of [wall, icu.display(new Date(at - HOUR).toISOString().slice(0, 19) + 'Z')])
        expect(fast.store(near)).toBe(icu.store(near));
    }
  });

  test('Manila since 1970: +08:00 but for the summers of 1977 and 1990, changes found to the second', () => {
    expect(
      zoneOffsets('Asia/Manila')!.offsets.map(([start, offset]) => [
        new Date(start * 1000).toISOString(),
        offset / 3600,
      ]),
    ).toEqual([
      ['1970-01-01T00:00:00.000Z', 8],
      ['1977-03-27T16:00:00.000Z', 9],
      ['1977-09-21T15:00:00.000Z', 8],
      ['1990-05-20T16:00:00.000Z', 9],
      ['1990-07-28T15:00:00.000Z', 8],
    ]);
    // The hour skipped in 1977 does not exist; the one repeated is read as its first.
    const manila = createTimeCodec('Asia/Manila', zoneOffsets('Asia/Manila'));
    expect(manila.store('1977-03-28 00:30:00')).toBeUndefined();
    expect(manila.store('1977-09-21 23:30:00')).toBe('1977-09-21T14:30:00Z');
  });

  test('a zone with daylight saving has no table: ICU serves it', () => {
    expect(zoneOffsets('America/New_York')).toBeUndefined();
    expect(zoneOffsets('Europe/Moscow')).toBeUndefined();
  });

  test('outside its span a table gives way to ICU', () => {
    const manila = createTimeCodec('Asia/Manila', zoneOffsets('Asia/Manila'));
    expect(manila.display('1969-12-31T15:00:00Z')).toBe('1969-12-31 23:00:00');
    expect(manila.display('2100-01-01T00:00:00Z')).toBe('2100-01-01 08:00:00');
    expect(manila.store('1970-01-01 07:59:59')).toBe('1969-12-31T23:59:59Z');
  });

  test('a table read from the environment must be whole, ordered and for the zone', () => {
    const json = JSON.stringify(zoneOffsets('Asia/Manila'));
    expect(parseZoneOffsets(json, 'Asia/Manila')).toEqual(zoneOffsets('Asia/Manila'));
    expect(parseZoneOffsets(json, 'Asia/Tokyo')).toBeUndefined();
    const table = JSON.parse(json) as { offsets: number[][]; until: number };
    for (const broken of [
      { ...table, offsets: [...table.offsets].reverse() },
      { ...table, offsets: [] },
      { ...table, offsets: [[0, 28_800.5]] },
      { ...table, offsets: [[0]] },
      { ...table, until: 0 },
    ])
      expect(parseZoneOffsets(JSON.stringify(broken), 'Asia/Manila')).toBeUndefined();
    expect(parseZoneOffsets('{', 'Asia/Manila')).toBeUndefined();
  });
});
