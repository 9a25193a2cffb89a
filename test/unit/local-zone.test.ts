/**
 * A local data directory keeps the zone its records were read in (SPEC 3.5): a start in another
 * zone is refused, saying what to do, as a stage refuses a changed zone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepZone, SEED_MARKER } from '../../local/rig/state.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'local-zone-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a new table takes the zone it is given, and a later start must keep it', () => {
  keepZone(dir, 'Asia/Manila', true);
  expect(readFileSync(join(dir, 'display-time-zone'), 'utf8')).toBe('Asia/Manila\n');
  expect(() => keepZone(dir, 'Asia/Manila', false)).not.toThrow();
  expect(() => keepZone(dir, 'UTC', false)).toThrow(
    `${dir} holds records whose times were read in Asia/Manila, not UTC (DISPLAY_TIME_ZONE, default Asia/Manila). ` +
      `Start with DISPLAY_TIME_ZONE=Asia/Manila to keep them as they are, or move ${dir} aside (or delete it) to start afresh in UTC and import your files again.`,
  );
  // A table made afresh (in memory, or deleted) takes any zone.
  expect(() => keepZone(dir, 'UTC', true)).not.toThrow();
});

test('a data directory made under the earlier UTC default is taken as UTC', () => {
  writeFileSync(join(dir, SEED_MARKER), '{}');
  expect(() => keepZone(dir, 'Asia/Manila', false)).toThrow(/read in UTC, not Asia\/Manila/);
  expect(() => keepZone(dir, 'UTC', false)).not.toThrow();
  expect(readFileSync(join(dir, 'display-time-zone'), 'utf8')).toBe('UTC\n');
});
