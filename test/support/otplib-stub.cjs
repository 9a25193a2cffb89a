/**
 * otplib's functional API (generateSecret, generateSync, verifySync: what cognito-local's
 * services/totp.js and sign-in/totp.ts call) for jest only, with real TOTP. otplib's default
 * plugins (@noble/hashes, @scure/base) are ESM-only, which jest 29's module system cannot
 * require(); Node 24 can, so everything outside jest uses the real package. This is otplib's own
 * @otplib/core and @otplib/totp (CommonJS) with two small plugins in their place: HMAC and
 * random bytes from node:crypto, and RFC 4648 base32. test/unit/otplib-stub.test.ts holds it to
 * the real otplib run by Node (same code for the same secret and time, secrets that decode).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS module, require()d by jest */
const { createHmac, randomBytes } = require('node:crypto');
const core = require('@otplib/core');
const totp = require('@otplib/totp');

const HASHES = { sha1: 'sha1', sha256: 'sha256', sha512: 'sha512' };

const crypto = Object.freeze({
  name: 'node',
  algorithms: Object.freeze(Object.keys(HASHES)),
  hmac(algorithm, key, data) {
    const name = core.normalizeHashAlgorithm(algorithm, {
      supported: this.algorithms,
      plugin: this.name,
    });
    return new Uint8Array(createHmac(HASHES[name], key).update(data).digest());
  },
  randomBytes(length) {
    return new Uint8Array(randomBytes(length));
  },
  constantTimeEqual(a, b) {
    return core.constantTimeEqual(a, b);
  },
});

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, unpadded by default, case-insensitive on decode, as otplib's scure plugin. */
const base32 = Object.freeze({
  name: 'rfc4648',
  encode(data, options = {}) {
    let bits = 0;
    let value = 0;
    let out = '';
    for (const byte of data) {
      value = (value << 8) | byte;
      bits += 8;
      while (bits >= 5) {
        out += ALPHABET[(value >>> (bits - 5)) & 31];
        bits -= 5;
      }
    }
    if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
    return options.padding ? out.padEnd(Math.ceil(out.length / 8) * 8, '=') : out;
  },
  decode(str) {
    const text = String(str).toUpperCase().replace(/=+$/, '');
    const bytes = [];
    let bits = 0;
    let value = 0;
    for (const char of text) {
      const index = ALPHABET.indexOf(char);
      if (index < 0)
        throw new Error(`Invalid Base32 string: unknown letter ${JSON.stringify(char)}`);
      value = (value << 5) | index;
      bits += 5;
      if (bits >= 8) {
        bytes.push((value >>> (bits - 8)) & 255);
        bits -= 8;
      }
    }
    return new Uint8Array(bytes);
  },
});

/** The defaults otplib's functional API fills in (otplib/dist/functional.cjs), TOTP only. */
function options(o) {
  if (o.strategy !== undefined && o.strategy !== 'totp')
    throw new Error('the otplib stub does TOTP only');
  return {
    secret: o.secret,
    crypto: o.crypto ?? crypto,
    base32: o.base32 ?? base32,
    algorithm: o.algorithm ?? 'sha1',
    digits: o.digits ?? 6,
    period: o.period ?? 30,
    epoch: o.epoch ?? Math.floor(Date.now() / 1000),
    t0: o.t0 ?? 0,
    guardrails: o.guardrails ?? core.createGuardrails(),
  };
}

function generateSecret(o = {}) {
  return core.generateSecret({
    crypto: o.crypto ?? crypto,
    base32: o.base32 ?? base32,
    length: o.length ?? 20,
  });
}

function generateSync(o) {
  return totp.generateSync(options(o));
}

function verifySync(o) {
  return totp.verifySync({
    ...options(o),
    token: o.token,
    epochTolerance: o.epochTolerance ?? 0,
    afterTimeStep: o.afterTimeStep,
  });
}

// Names only, as jest's ES module linker reads them off the source (cjs-module-lexer).
module.exports = { generateSecret, generateSync, verifySync };
