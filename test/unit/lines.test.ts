import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLines, type Line } from '../../import/lines.ts';

const dir = mkdtempSync(join(tmpdir(), 'lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
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
      {
        lineNo: 2,
        error: 'is not valid UTF-8: first invalid byte at offset 9 of the file (offsets from 0)',
      },
      { lineNo: 3, text: 'ok' },
    ]);
  });

  // Issue 30: where in the file, for an editor or `xxd -s`: the first byte that starts no
  // well-formed sequence, after valid multi-byte characters, in a line that spans the stream's
  // chunks (64 KiB), after a line that does too.
  test.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong form', [0xc0, 0xaf]],
    ['a surrogate', [0xed, 0xa0, 0x80]],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
    ['0xff', [0xff]],
  ])(
    'invalid UTF-8 (%s) names the offset in the file of its first invalid byte',
    async (_, bad) => {
      const before = Buffer.from(
        `{"ok":"${'x'.repeat(70_000)}"}\n{"name":"ñ€😀${'y'.repeat(70_000)}`,
      );
      const file = Buffer.concat([before, Buffer.from(bad), Buffer.from('"}\nok\n')]);
      expect(await linesOf(file)).toEqual([
        { lineNo: 1, text: expect.any(String) },
        {
          lineNo: 2,
          error: `is not valid UTF-8: first invalid byte at offset ${before.length} of the file (offsets from 0)`,
        },
        { lineNo: 3, text: 'ok' },
      ]);
    },
  );

  test('an over-long line is reported without being kept, and reading goes on', async () => {
    expect(await linesOf(`${'x'.repeat(100)}\nshort\n${'y'.repeat(11)}`, 10)).toEqual([
      { lineNo: 1, error: 'is longer than 10 bytes' },
      { lineNo: 2, text: 'short' },
      { lineNo: 3, error: 'is longer than 10 bytes' },
    ]);
  });
});
