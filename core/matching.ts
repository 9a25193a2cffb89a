/**
 * How SPEC 10 compares what staff hold with what is stored: the one copy of the rules, for the
 * index keys (./lookups.ts), the functions' parameters and the staff page, which checks a search
 * before sending it. Plain string work: no Node.js or browser API.
 */

/** The longest value a lookup takes, and the longest normalised value indexed (SPEC 10). */
export const MAX_LOOKUP_CHARS = 200;
/** A TIN is found by a prefix of at least this many characters (the TIN card's 9 digits). */
export const TIN_PREFIX_CHARS = 9;
/**
 * A name as SPEC 10 compares it: compatibility decomposition, accents removed (`ñ` is `n`),
 * letters and digits only, lower-cased. `De la Cruz`, `DELA CRUZ` and `Dela-Cruz` are one name.
 */
export function normaliseName(value: string): string {
  // Marks (accents) are neither letters nor digits; lower-casing can decompose further (`İ`).
  // Each character lower-cased on its own, and the final sigma as sigma: JavaScript lower-cases
  // Σ by its place in a word, so "ΠΑΠΑΣ ΓΕΩΡΓΙΟΥ" and "Παπασγεωργιου" would be two names.
  return [...value.normalize('NFKD')]
    .map((c) => c.toLowerCase())
    .join('')
    .replace(/ς/g, 'σ')
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** A TIN, SSS number or ID number as SPEC 10 compares it: letters and digits, upper-cased. */
export function normaliseIdentifier(value: string): string {
  return value.replace(/[^\p{L}\p{N}]/gu, '').toUpperCase();
}

/** Characters as a person counts them (code points), not UTF-16 units. */
export const charCount = (value: string): number => [...value].length;
