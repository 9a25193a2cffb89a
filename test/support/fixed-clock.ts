/**
 * Preloaded into a child process (`node --import ./test/support/fixed-clock.ts`, run by Node.js's
 * own type stripping): the clock stands still at FIXED_CLOCK and random ids are fixed, so that
 * two SDK clients in two processes sign the same request byte for byte.
 */
import crypto from 'node:crypto';

const FIXED = Date.parse(process.env.FIXED_CLOCK ?? '2026-01-02T03:04:05Z');
const RealDate = Date;

globalThis.Date = class extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length) super(...(args as [string]));
    else super(FIXED);
  }
  static override now(): number {
    return FIXED;
  }
} as DateConstructor;

const uuid = () => '00000000-0000-4000-8000-000000000000' as const;
crypto.randomUUID = uuid;
globalThis.crypto.randomUUID = uuid;
