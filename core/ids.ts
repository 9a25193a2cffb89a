/** Record ids (SPEC 3.3): positive integers up to 2^53-1, written canonically in a path. */
export const MAX_ID = 2n ** 53n - 1n;
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;

/** A canonical positive decimal integer up to 2^53-1, or undefined for anything else. */
export function parseCanonicalId(raw: string | undefined): bigint | undefined {
  if (raw === undefined || !CANONICAL_ID.test(raw)) return undefined;
  const id = BigInt(raw);
  return id <= MAX_ID ? id : undefined;
}
