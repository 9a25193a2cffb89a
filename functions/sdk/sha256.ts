/**
 * SHA-256 and HMAC-SHA256 for the SDK clients' SigV4 request signing, in place of the SDK's
 * own (`sha256` client option).
 *
 * Why: on Node.js 24, createHmac() with a Buffer key is several times slower than with a
 * KeyObject or a string key (it builds and throws away an Error inside, stack trace and all), and
 * signing a request makes two HMACs. The signer keeps the day's signing key as one Uint8Array, so
 * it is turned into a KeyObject once; a string key (the secret access key) is used as it is, which
 * is the same UTF-8 bytes the SDK would make of it. Measured in docs/performance.md and
 * ./README.md; the signatures are the SDK's (test/unit/sha256.test.ts).
 */
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

const keyObjects = new WeakMap<object, KeyObject>();

function bytes(data: ArrayBuffer | ArrayBufferView): Buffer {
  return ArrayBuffer.isView(data)
    ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    : Buffer.from(data);
}

function hmacKey(secret: SourceData): string | KeyObject {
  if (typeof secret === 'string') return secret;
  let key = keyObjects.get(secret);
  if (!key) {
    key = createSecretKey(bytes(secret));
    keyObjects.set(secret, key);
  }
  return key;
}

/** A Checksum constructor for the SDK's signers: `new Sha256()` hashes, `new Sha256(key)` MACs. */
export class Sha256 {
  private readonly hash;

  constructor(secret?: SourceData) {
    this.hash = secret ? createHmac('sha256', hmacKey(secret)) : createHash('sha256');
  }

  update(data: SourceData): void {
    this.hash.update(typeof data === 'string' ? data : bytes(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.hash.digest());
  }
}
