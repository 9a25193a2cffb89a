/**
 * The `next` cursor of a lookup (SPEC 10): where the following page starts, sealed with AES-256-GCM
 * so that a client can neither read it nor change it. The additional data binds it to one lookup
 * (route, kind, normalised values): another lookup's cursor, or one altered in any byte, fails
 * authentication; the instant it was issued is inside, and after CURSOR_LIFETIME_SECONDS it is
 * refused. Every failure is the same 400: a client learns nothing about why.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { BadRequestError } from './errors.ts';

/** A cursor is good for 24 hours after it was issued. */
export const CURSOR_LIFETIME_SECONDS = 24 * 60 * 60;
/** Function instances' clocks may differ: a cursor issued this far "in the future" still opens. */
const CLOCK_SKEW_SECONDS = 300;
const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SORT_KEY_END = /#[0-9]{16}$/;

export interface CursorCodec {
  /** A cursor of `lookup` going on after the index entry with this sort key. */
  seal(after: string, lookup: string): string;
  /** The sort key, or a 400 naming the cursor. */
  open(cursor: string, lookup: string): string;
}

const invalid = () =>
  new BadRequestError('Invalid cursor: not a cursor of this lookup, or expired');

/**
 * `secret` is the stage's cursor key (any text of at least 32 characters: lib/api.ts, locally
 * .local/); the AES key is its SHA-256.
 */
export function createCursorCodec(secret: string, now: () => number = Date.now): CursorCodec {
  const key = createHash('sha256').update(secret, 'utf8').digest();
  const seconds = () => Math.floor(now() / 1000);
  return {
    seal(after, lookup) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(`${FORMAT}\n${lookup}`, 'utf8'));
      const plain = Buffer.from(JSON.stringify({ k: after, t: seconds() }), 'utf8');
      const sealed = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return Buffer.concat([Buffer.of(FORMAT), iv, sealed]).toString('base64url');
    },
    open(cursor, lookup) {
      if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
      const bytes = Buffer.from(cursor, 'base64url');
      // base64url that does not round-trip (a changed padding bit) is another cursor.
      if (bytes.toString('base64url') !== cursor) throw invalid();
      if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== FORMAT) throw invalid();
      const iv = bytes.subarray(1, 1 + IV_BYTES);
      const tag = bytes.subarray(bytes.length - TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${FORMAT}\n${lookup}`, 'utf8'));
      decipher.setAuthTag(tag);
      let payload: unknown;
      try {
        const plain = Buffer.concat([
          decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]);
        payload = JSON.parse(plain.toString('utf8'));
      } catch {
        throw invalid();
      }
      const { k, t } = (payload ?? {}) as { k?: unknown; t?: unknown };
      const age = typeof t === 'number' ? seconds() - t : Number.NaN;
      // Every index sort key ends with a record's id (core/lookups.ts): anything else, even
      // sealed with the stage's secret, is no cursor of ours.
      if (
        typeof k !== 'string' ||
        !SORT_KEY_END.test(k) ||
        !(age >= -CLOCK_SKEW_SECONDS && age <= CURSOR_LIFETIME_SECONDS)
      )
        throw invalid();
      return k;
    },
  };
}
