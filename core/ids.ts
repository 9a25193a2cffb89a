/** Record ids (SPEC 3.3): positive integers up to 2^53-1, written canonically in a path. */
export const MAX_ID = 2n ** 53n - 1n;
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;

/** A canonical positive decimal integer up to 2^53-1, or undefined for anything else. */
export function parseCanonicalId(raw: string | undefined): bigint | undefined {
  if (raw === undefined || !CANONICAL_ID.test(raw)) return undefined;
  const id = BigInt(raw);
  return id <= MAX_ID ? id : undefined;
}

/**
 * Why `raw` is not an id, for a person at a command line (the API's 400 keeps SPEC 4's fixed
 * message); undefined when it is one. `007` is a whole number, so saying only "positive whole
 * numbers" would not tell its writer what to change.
 */
export function idProblem(raw: string): string | undefined {
  if (parseCanonicalId(raw) !== undefined) return undefined;
  if (/^0+[1-9][0-9]*$/.test(raw))
    return `ids are written without leading zeros: ${raw.replace(/^0+/, '')}, not ${raw}`;
  if (/^[0-9]+$/.test(raw) && BigInt(raw) > MAX_ID) return `ids go up to ${MAX_ID}`;
  return 'ids are positive whole numbers (1, 2, 3, ...)';
}
