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
 * read), numbered from `firstLine`, the file's own number of the stream's first line.
 */
export async function* linesOf(
  chunks: AsyncIterable<Uint8Array>,
  firstLine = 1,
  maxBytes = MAX_LINE_BYTES,
): AsyncGenerator<Line> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let lineNo = firstLine - 1;

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
      return { lineNo: line, error: 'is not valid UTF-8' };
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
    }
  }
  if (size > 0 || tooLong) yield finish();
}
