/**
 * Issue 56: the docs stay short. README.md at most 1,000 words, and README.md with every Markdown
 * file under docs/ at most 20,000, counted as `wc -w README.md $(find docs -name '*.md')` counts:
 * a word is a run of characters that are not white space.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';

const README_MAX_WORDS = 1_000;
const DOCS_MAX_WORDS = 20_000;

/** Every Markdown file under a folder, its subfolders included, as paths from the root. */
const markdownUnder = (dir: string): string[] =>
  readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdownUnder(`${dir}/${entry.name}`)
      : entry.name.endsWith('.md')
        ? [`${dir}/${entry.name}`]
        : [],
  );

/** Words as `wc -w` counts them: runs of anything but white space. */
const wordsOf = (text: string): number => text.match(/\S+/g)?.length ?? 0;

const wordsIn = (file: string): number => wordsOf(readFileSync(join(PROJECT_ROOT, file), 'utf8'));

test('words are counted as wc -w counts them', () => {
  expect(wordsOf('')).toBe(0);
  expect(wordsOf('  one\ttwo\n\nthree-four `five` | -- |  ')).toBe(7);
});

test(`README.md is at most ${README_MAX_WORDS} words`, () => {
  expect(wordsIn('README.md')).toBeLessThanOrEqual(README_MAX_WORDS);
});

test(`README.md and docs/**/*.md together are at most ${DOCS_MAX_WORDS} words`, () => {
  const files = ['README.md', ...markdownUnder('docs')];
  expect(files).toContain('docs/contract.md');
  const counts = files.map((file) => [file, wordsIn(file)] as const);
  const total = counts.reduce((sum, [, words]) => sum + words, 0);
  // On failure, the longest pages are named: where to cut.
  const longest = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5);
  expect({ total, longest }).toEqual({ total: Math.min(total, DOCS_MAX_WORDS), longest });
});
