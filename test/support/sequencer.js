/**
 * Jest's order, with a better guess where it has no timings yet (a fresh clone, as in CI). Jest
 * then starts the biggest files first; but an entry file that only imports the halves beside it
 * (test/infra/stack.test.ts and its checks/) looks small, and so does a short file that
 * does a lot (10^6 lines), so each started late and ran alone at the end. Here the files whose
 * docblock says `@slow` go first, a file weighs its own bytes and those of the files beside it that it imports, and test/unit,
 * quick, comes last to fill the workers' gaps. With timings, jest's own order (longest first)
 * stands.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import TestSequencer from '@jest/test-sequencer';

/**
 * An import such as `import './<folder>/<file>.ts';`: it names a half of the entry file, in a
 * folder beside it.
 */
const HALF = /^import\s+(?:[^'"]*from\s+)?['"](\.\/[^'"]+\/[^'"]+)['"]/gm;

/** `@slow` in the file's first docblock. */
const SLOW = /^\/\*\*(?:(?!\*\/)[\s\S])*@slow\b/;

function weight(path) {
  const text = readFileSync(path, 'utf8');
  let bytes = statSync(path).size;
  for (const [, specifier] of text.matchAll(HALF)) {
    const half = join(dirname(path), specifier);
    if (existsSync(half)) bytes += statSync(half).size;
  }
  return SLOW.test(text) ? Number.MAX_SAFE_INTEGER / 2 + bytes : bytes;
}

export default class Sequencer extends TestSequencer {
  sort(tests) {
    if (tests.some((test) => this.time(test) !== undefined)) return super.sort(tests);
    const quick = (test) =>
      relative(test.context.config.rootDir, test.path).startsWith(`test${sep}unit${sep}`);
    const weights = new Map(tests.map((test) => [test.path, weight(test.path)]));
    return [...tests].sort(
      (a, b) => quick(a) - quick(b) || weights.get(b.path) - weights.get(a.path),
    );
  }
}
