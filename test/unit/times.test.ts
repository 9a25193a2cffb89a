import { jest } from '@jest/globals';
import { createTimeCodec, wallTimeProblem } from '../../core/times.ts';

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

  test('UTC: no formatter at all', () => {
    const made = jest.spyOn(Intl, 'DateTimeFormat');
    const codec = createTimeCodec('UTC');
    codec.prepare();
    expect(codec.display('2024-01-01T00:00:00Z')).toBe('2024-01-01 00:00:00');
    expect(made).toHaveBeenCalledTimes(0);
  });
});
