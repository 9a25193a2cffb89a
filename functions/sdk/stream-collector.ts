/**
 * A response body as bytes, read from the Node.js stream the SDK's HTTP handler gives. The SDK's
 * own collector first asks whether the body is a web `ReadableStream` or a `Blob`, and the first
 * look at the global `ReadableStream` loads Node.js's web streams: time on every cold start's
 * first request, for a kind of body the Node.js handler never returns.
 */
import type { Readable } from 'node:stream';

export function streamCollector(stream: unknown): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    (stream as Readable)
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('error', reject)
      .once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
}
