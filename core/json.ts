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

/** Parses JSON turning every integer literal into a bigint, read from its source text. */
export function parseExactJson(text: string): unknown {
  const reviver: Reviver = (_key, value, context) =>
    typeof value === 'number' &&
    context?.source !== undefined &&
    INTEGER_LITERAL.test(context.source)
      ? BigInt(context.source)
      : value;
  return JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]);
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
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[key] = numbersToBigints(object[key]);
  }
  return value;
}

/**
 * JSON that stringifyExactJson wrote, read back as parseExactJson reads it, about 4x faster (no
 * reviver, which V8 calls with each value's source text; the import's stored records,
 * import/parts.ts). Exact: a number that is a safe integer came from digits that are exactly it;
 * text with any other number is read by parseExactJson.
 */
export function parseStoredExactJson(text: string): unknown {
  try {
    return numbersToBigints(JSON.parse(text));
  } catch (error) {
    if (error instanceof NotSafeInteger) return parseExactJson(text);
    throw error;
  }
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
