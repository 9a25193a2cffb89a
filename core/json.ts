/**
 * Exact JSON: integers are carried as bigint and decimals as strings, so no amount, rate, id or
 * receipt number ever passes through a binary float (SPEC 3).
 */

type Reviver = (
  this: unknown,
  key: string,
  value: unknown,
  context?: { source?: string },
) => unknown;

/** The text of a JSON or DynamoDB number that is an integer. */
export const INTEGER_LITERAL = /^-?[0-9]+$/;

// Both features below arrived in Node.js 21; without them integers would silently become floats.
if (typeof (JSON as { rawJSON?: unknown }).rawJSON !== 'function') {
  throw new Error(`Node.js 22 or later is required for exact JSON (this is ${process.version})`);
}

/**
 * Parses JSON turning every integer literal into a bigint, digit for digit. Text whose numbers are
 * all integers (the usual import line: decimals are strings) is parsed without a reviver, which
 * V8 would call with each value's source text, and its safe integers made bigints after; any
 * other text, or an integer beyond 2^53, is read with the reviver.
 */
export function parseExactJson(text: string): unknown {
  if (integersOnly(text)) {
    try {
      return numbersToBigints(JSON.parse(text));
    } catch (error) {
      if (!(error instanceof NotSafeInteger)) throw error;
    }
  }
  const reviver: Reviver = (_key, value, context) =>
    typeof value === 'number' &&
    context?.source !== undefined &&
    INTEGER_LITERAL.test(context.source)
      ? BigInt(context.source)
      : value;
  return JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]);
}

/**
 * Whether every number literal of JSON text is an integer: outside strings, no `.`, `e` or `E`
 * right after a digit (`true` and `false` have their `e` after a letter).
 */
function integersOnly(text: string): boolean {
  let inString = false;
  let afterDigit = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (afterDigit && (c === 0x2e || c === 0x65 || c === 0x45)) {
      return false;
    }
    afterDigit = !inString && c >= 0x30 && c <= 0x39;
  }
  return true;
}

declare global {
  interface JSON {
    rawJSON(text: string): unknown;
  }
}

/** Serialises bigints as JSON integers, digit for digit. */
export function stringifyExactJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'bigint' ? JSON.rawJSON(v.toString()) : v,
  );
}

class NotSafeInteger extends Error {}

/** Each number of a value JSON.parse made, a bigint; throws NotSafeInteger for one that is not. */
function numbersToBigints(value: unknown): unknown {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new NotSafeInteger();
    return BigInt(value);
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = numbersToBigints(value[i]);
  } else {
    // Every key is the object's own (JSON.parse's `__proto__` too), so this sets no prototype.
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[key] = numbersToBigints(object[key]);
  }
  return value;
}

/**
 * The type a value has once stringifyExactJson wrote it and a client parsed it: each bigint a
 * JSON number (a bigint literal type such as `0n | 1n` its number literal), the rest alike.
 * The typed client's record types are compared with the handlers' records through it.
 */
export type AsJson<T> = T extends bigint
  ? `${T}` extends `${infer N extends number}`
    ? N
    : number
  : T extends readonly (infer E)[]
    ? AsJson<E>[]
    : T extends object
      ? { [K in keyof T]: AsJson<T[K]> }
      : T;
