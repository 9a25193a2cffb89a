/**
 * Reads a file line by line as bytes, so that a line that is not UTF-8 is reported rather than
 * silently repaired, an over-long line is never held in memory, and the file is streamed.
 */
import { createReadStream } from 'node:fs';

export type Line = { lineNo: number; text: string } | { lineNo: number; error: string };

export const MAX_LINE_BYTES = 1024 * 1024;

export function readLines(path: string, maxBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  return linesOf(createReadStream(path) as AsyncIterable<Buffer>, 1, maxBytes);
}

/**
 * The lines of a byte stream (a file, or a part of one that starts at a line start: an S3 range
 * read), numbered from `firstLine`, the file's own number of the stream's first line;
 * `firstByte` is the file's offset of the stream's first byte, so that a line that is not UTF-8
 * names the offset in the file of its first bad byte, where an editor or `xxd` finds it.
 */
export async function* linesOf(
  chunks: AsyncIterable<Uint8Array>,
  firstLine = 1,
  maxBytes = MAX_LINE_BYTES,
  firstByte = 0,
): AsyncGenerator<Line> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let lineNo = firstLine - 1;
  /** The file's offset of the current line's first byte, and of the current chunk's. */
  let lineStart = firstByte;
  let chunkStart = firstByte;

  const finish = (): Line => {
    lineNo += 1;
    const line = lineNo;
    const bytes = Buffer.concat(parts, size);
    const overLimit = tooLong;
    parts = [];
    size = 0;
    tooLong = false;
    if (overLimit) return { lineNo: line, error: `is longer than ${maxBytes} bytes` };
    try {
      return { lineNo: line, text: decoder.decode(bytes).replace(/\r$/, '') };
    } catch {
      const at = lineStart + firstInvalidUtf8(bytes);
      return {
        lineNo: line,
        error: `is not valid UTF-8: first invalid byte at offset ${at} of the file (offsets from 0)`,
      };
    }
  };

  for await (const bytes of chunks) {
    const chunk = Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!tooLong) {
        if (size + end - start > maxBytes) {
          tooLong = true;
          parts = [];
          size = 0;
        } else if (end > start) {
          parts.push(chunk.subarray(start, end));
          size += end - start;
        }
      }
      if (newline === -1) break;
      yield finish();
      start = newline + 1;
      lineStart = chunkStart + start;
    }
    chunkStart += chunk.length;
  }
  if (size > 0 || tooLong) yield finish();
}

/**
 * The index of the first byte that starts no well-formed UTF-8 sequence (Unicode 15, table 3-7:
 * no overlong forms, no surrogates, nothing above U+10FFFF), or of a sequence cut short; the
 * length when every sequence is whole. Only a line the decoder refused is searched.
 */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let n: number; // continuation bytes
    let low = 0x80; // the second byte's range
    let high = 0xbf;
    if (b < 0x80) n = 0;
    else if (b >= 0xc2 && b <= 0xdf) n = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= n; k += 1) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += n + 1;
  }
  return i;
}
