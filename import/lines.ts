/**
 * Reads a file line by line as bytes, so that a line that is not UTF-8 is reported rather than
 * silently repaired, an over-long line is never held in memory, and the file is streamed.
 */
import { createReadStream } from 'node:fs';

export type Line = { lineNo: number; text: string } | { lineNo: number; error: string };

export const MAX_LINE_BYTES = 1024 * 1024;

export async function* readLines(path: string, maxBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let lineNo = 0;

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

  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
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
