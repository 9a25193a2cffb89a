import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLines, type Line } from '../../import/lines';

const dir = mkdtempSync(join(tmpdir(), 'lines-'));
let n = 0;
async function linesOf(content: Buffer | string, maxBytes?: number): Promise<Line[]> {
  const path = join(dir, `f${n++}`);
  writeFileSync(path, content);
  const out: Line[] = [];
  for await (const line of readLines(path, maxBytes)) out.push(line);
  return out;
}

describe('reading an import file line by line', () => {
  test('numbers lines from 1, handles CRLF, a missing final newline and unicode', async () => {
    expect(await linesOf('a\r\nñ€😀\nlast')).toEqual([
      { lineNo: 1, text: 'a' },
      { lineNo: 2, text: 'ñ€😀' },
      { lineNo: 3, text: 'last' },
    ]);
  });

  test('blank lines keep their numbers so reports point at the right line', async () => {
    expect(await linesOf('a\n\nb\n')).toEqual([
      { lineNo: 1, text: 'a' },
      { lineNo: 2, text: '' },
      { lineNo: 3, text: 'b' },
    ]);
  });

  test('invalid UTF-8 is reported, not replaced', async () => {
    const bad = Buffer.concat([
      Buffer.from('ok\n{"a":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\nok\n'),
    ]);
    expect(await linesOf(bad)).toEqual([
      { lineNo: 1, text: 'ok' },
      { lineNo: 2, error: 'is not valid UTF-8' },
      { lineNo: 3, text: 'ok' },
    ]);
  });

  test('an over-long line is reported without being kept, and reading goes on', async () => {
    expect(await linesOf(`${'x'.repeat(100)}\nshort\n${'y'.repeat(11)}`, 10)).toEqual([
      { lineNo: 1, error: 'is longer than 10 bytes' },
      { lineNo: 2, text: 'short' },
      { lineNo: 3, error: 'is longer than 10 bytes' },
    ]);
  });
});
