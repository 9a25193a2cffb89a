/**
 * A small validator for the record shapes of SPEC 3. It reports every problem as a field path
 * and a reason, which the import turns into `line N: <field path>: <reason>`.
 */
import { MAX_ID } from './ids.ts';

export interface Problem {
  readonly path: string;
  readonly reason: string;
}

/**
 * Checks a value, pushing what is wrong to `problems`, and returns it with objects rebuilt in
 * the order of their shape, so that a record read back from the table has the SPEC's field order.
 */
export type Check = (value: unknown, path: string, problems: Problem[]) => unknown;

export function integer(min = -MAX_ID, max = MAX_ID): Check {
  return (value, path, problems) => {
    if (typeof value !== 'bigint') problems.push({ path, reason: 'must be an integer' });
    else if (value < min || value > max)
      problems.push({ path, reason: `must be an integer from ${min} to ${max}` });
    return value;
  };
}

export function string(
  options: {
    maxLength?: number;
    pattern?: RegExp;
    expected?: string;
    valid?: (s: string) => boolean;
  } = {},
): Check {
  const { maxLength = 2000, pattern, expected, valid } = options;
  return (value, path, problems) => {
    if (typeof value !== 'string')
      problems.push({ path, reason: `must be ${expected ?? 'a string'}` });
    else if (value.length > maxLength)
      problems.push({ path, reason: `must be at most ${maxLength} characters long` });
    else if ((pattern && !pattern.test(value)) || (valid && !valid(value)))
      problems.push({ path, reason: `must be ${expected ?? 'a valid string'}` });
    return value;
  };
}

/** A decimal number in a JSON string; `fractionDigits` fixes how many digits follow the point. */
export function decimal(fractionDigits?: number): Check {
  const fraction = fractionDigits === undefined ? '(\\.[0-9]+)?' : `\\.[0-9]{${fractionDigits}}`;
  const expected =
    fractionDigits === undefined
      ? 'a decimal number in a string, e.g. "12.5"'
      : `a decimal number in a string with exactly ${fractionDigits} fraction digits, e.g. "${(12.5).toFixed(fractionDigits)}"`;
  return string({ maxLength: 64, pattern: new RegExp(`^-?(0|[1-9][0-9]*)${fraction}$`), expected });
}

export function nullable(check: Check): Check {
  return (value, path, problems) => {
    return value === null ? null : check(value, path, problems);
  };
}

/** An object's check, with the names of its fields (core/layout.ts: what a write replaces). */
export type ObjectCheck = Check & { readonly fields: readonly string[] };

export function object(shape: Record<string, Check>, refine?: Check): ObjectCheck {
  // Once, not per value: every GET checks its stored record (bench/RESULTS.md, warm overhead).
  const fields = Object.entries(shape);
  const check: Check = (value, path, problems) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push({ path, reason: 'must be an object' });
      return value;
    }
    const record = value as Record<string, unknown>;
    const ordered: Record<string, unknown> = {};
    let known = 0;
    for (const [key, check] of fields) {
      if (Object.hasOwn(record, key)) {
        known += 1;
        ordered[key] = check(record[key], `${path}.${key}`, problems);
      } else problems.push({ path: `${path}.${key}`, reason: 'is required' });
    }
    // Only a record with more fields than the known ones found has unknown fields.
    if (Object.keys(record).length !== known) {
      for (const key of Object.keys(record)) {
        if (!Object.hasOwn(shape, key))
          problems.push({ path: `${path}.${key}`, reason: 'is not a known field' });
      }
    }
    refine?.(ordered, path, problems);
    return ordered;
  };
  return Object.assign(check, { fields: Object.keys(shape) });
}

/**
 * An array of objects with an `id`: in any order (exports from other systems are often
 * unsorted), each id once. Returned in ascending id order, the order the API gives.
 */
export function arrayById(item: Check, maxItems: number): Check {
  return (value, path, problems) => {
    if (!Array.isArray(value)) {
      problems.push({ path, reason: 'must be an array' });
      return value;
    }
    if (value.length > maxItems) {
      problems.push({ path, reason: `must have at most ${maxItems} entries` });
      return value;
    }
    const field = path.slice(path.lastIndexOf('.') + 1);
    const firstAt = new Map<bigint, number>();
    let sorted = true;
    let previous: bigint | undefined;
    const checked = value.map((entry: unknown, i) => {
      const at = `${path}[${i}]`;
      const result = item(entry, at, problems);
      const id = (entry as { id?: unknown } | null)?.id;
      if (typeof id === 'bigint') {
        const first = firstAt.get(id);
        if (first !== undefined)
          problems.push({
            path: `${at}.id`,
            reason: `must be unique: ${field}[${first}] has the id ${id} too`,
          });
        else firstAt.set(id, i);
        if (previous !== undefined && id < previous) sorted = false;
        previous = id;
      }
      return result;
    });
    if (sorted) return checked;
    return checked.sort((a, b) => {
      const [x, y] = [(a as { id: bigint }).id, (b as { id: bigint }).id];
      return x < y ? -1 : x > y ? 1 : 0;
    });
  };
}

/** Checks a value; on success returns it typed and in field order, else every problem found. */
export function validate<T>(
  check: Check,
  value: unknown,
  path: string,
): { ok: true; value: T } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const checked = check(value, path, problems);
  return problems.length === 0 ? { ok: true, value: checked as T } : { ok: false, problems };
}
