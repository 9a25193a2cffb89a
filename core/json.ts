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
