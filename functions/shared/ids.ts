import type { Entity } from './keys';
import { BadRequestError } from './errors';

export const MAX_ID = 2n ** 53n - 1n;
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;

/** Path ids are canonical positive decimal integers up to 2^53-1 (SPEC 3.3); anything else is a 400. */
export function parsePathId(raw: string | undefined, entity: Entity): bigint {
  if (raw !== undefined && CANONICAL_ID.test(raw)) {
    const id = BigInt(raw);
    if (id <= MAX_ID) return id;
  }
  throw new BadRequestError(`Invalid ${entity} id`);
}
