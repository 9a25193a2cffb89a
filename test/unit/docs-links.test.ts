/**
 * Issue 30: the repository is self-contained. No link in README.md or docs/ leaves it (no URL
 * with a scheme, no relative path that climbs out of the root), every link to a file or a heading
 * lands on one that is there, the contract the docs cite as "SPEC n" is docs/contract.md, and
 * openapi.yaml points at no contract outside the repository.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';

/** Every Markdown file under a folder of the repository, its subfolders included. */
const markdownUnder = (dir: string): string[] =>
  readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) =>
      entry.isDirectory()
        ? markdownUnder(`${dir}/${entry.name}`)
        : entry.name.endsWith('.md')
          ? [`${dir}/${entry.name}`]
          : [],
    );

/**
 * The docs: README.md, every Markdown file under docs/ (runbooks and decisions included), and the
 * READMEs a reader meets beside the code, as paths from the repository root.
 */
const DOCS = ['README.md', ...markdownUnder('docs'), 'bench/README.md', 'functions/sdk/README.md'];

const read = (file: string): string => readFileSync(join(PROJECT_ROOT, file), 'utf8');

/** A Markdown text's lines, those of fenced code blocks blanked out (line numbers kept). */
function withoutFences(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (marker === undefined) return line;
      fence = marker;
      return '';
    }
    if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length)
      fence = undefined;
    return '';
  });
}

/**
 * The prose of a Markdown text, line for line: code blocks and code spans are commands and
 * examples (`http://127.0.0.1:3000`), not links, so they are blanked out, and so are HTML
 * comments.
 */
function proseOf(markdown: string): string[] {
  const blank = (text: string): string => text.replace(/[^\n]/g, ' ');
  return withoutFences(markdown)
    .join('\n')
    .replace(/<!--[\s\S]*?-->/g, blank)
    .replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, blank)
    .split('\n');
}

/**
 * Every link target of a line of prose: inline links and images, reference definitions,
 * autolinks, HTML attributes and bare URLs.
 */
function targetsOf(line: string): string[] {
  const found = [
    ...[...line.matchAll(/\]\(\s*<([^>]*)>/g)].map((m) => m[1]!),
    ...[...line.matchAll(/\]\(\s*([^\s<)][^\s)]*)/g)].map((m) => m[1]!),
    ...[...line.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)/g)].map((m) => m[1]!),
    ...[...line.matchAll(/<([a-z][a-z0-9+.-]{1,31}:[^\s<>]*)>/gi)].map((m) => m[1]!),
    ...[...line.matchAll(/\b(?:href|src)\s*=\s*["']([^"']*)["']/gi)].map((m) => m[1]!),
    ...[...line.matchAll(/(?:\b[a-z][a-z0-9+.-]*:\/\/|\bmailto:|\bwww\.)[^\s<>)\]]*/gi)].map(
      // A sentence's full stop or comma after a bare URL is not part of it.
      (m) => m[0].replace(/[.,;:!?'"]+$/, ''),
    ),
  ];
  return [...new Set(found)];
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
const slugOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a Markdown file's headings, a repeated heading's with -1, -2 ... */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of withoutFences(read(file))) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
  }
  return anchors;
}

/**
 * What is wrong with a link of `file` to `target`, or undefined when it stays in the repository
 * and lands on a file (and heading) that is there.
 */
function linkProblem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || /^www\./i.test(target))
    return 'leaves the repository';
  const hash = target.indexOf('#');
  const pathPart = (hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
  let path: string;
  let anchor: string | undefined;
  try {
    path = decodeURIComponent(pathPart);
    anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  } catch {
    return 'is not well-formed';
  }
  const resolved =
    path === ''
      ? join(PROJECT_ROOT, file)
      : path.startsWith('/')
        ? join(PROJECT_ROOT, path)
        : resolve(PROJECT_ROOT, dirname(file), path);
  const inside = relative(PROJECT_ROOT, resolved);
  if (inside === '..' || inside.startsWith('../') || isAbsolute(inside))
    return 'leaves the repository';
  if (!existsSync(resolved)) return `points to ${inside}, which does not exist`;
  if (
    anchor !== undefined &&
    anchor !== '' &&
    statSync(resolved).isFile() &&
    inside.endsWith('.md')
  )
    if (!anchorsOf(inside).has(anchor)) return `points to a heading ${inside} does not have`;
  return undefined;
}

/** Every bad link of a Markdown text, as `<file>:<line>: <target> <problem>`. */
function badLinks(file: string, markdown: string): string[] {
  return proseOf(markdown).flatMap((line, index) =>
    targetsOf(line).flatMap((target) => {
      const problem = linkProblem(file, target);
      return problem === undefined ? [] : [`${file}:${index + 1}: ${target} ${problem}`];
    }),
  );
}

test('no link in README.md or docs/ leaves the repository or points to a file or heading that is not there', () => {
  expect(DOCS).toContain('docs/contract.md');
  expect(DOCS).toContain('docs/operations/loading-records.md');
  expect(DOCS).toContain('docs/decisions/README.md');
  expect(DOCS.flatMap((file) => badLinks(file, read(file)))).toEqual([]);
});

test('the check finds links that leave the repository, and passes those that stay', () => {
  const planted = [
    'See [the spec](../shared/SPEC.md) and [AWS](https://docs.aws.amazon.com/).',
    'Mail [us](mailto:ops@example.com), fetch <ftp://example.com/x>, open www.example.com or',
    'http://example.com/page; [gone](docs/nothing.md), [no heading](docs/api.md#nothing-here).',
    '[ref]: https://example.com/ref',
    '<a href="//cdn.example.com/x.js">x</a>',
    'Fine: [api](docs/api.md#errors), [yaml](openapi.yaml), [here](#ports), `http://127.0.0.1:3000`.',
    '```sh',
    'curl http://127.0.0.1:3000/transactions/1',
    '```',
  ].join('\n');
  expect(badLinks('README.md', planted)).toEqual([
    'README.md:1: ../shared/SPEC.md leaves the repository',
    'README.md:1: https://docs.aws.amazon.com/ leaves the repository',
    'README.md:2: mailto:ops@example.com leaves the repository',
    'README.md:2: ftp://example.com/x leaves the repository',
    'README.md:2: www.example.com leaves the repository',
    'README.md:3: docs/nothing.md points to docs/nothing.md, which does not exist',
    'README.md:3: docs/api.md#nothing-here points to a heading docs/api.md does not have',
    'README.md:3: http://example.com/page leaves the repository',
    'README.md:4: https://example.com/ref leaves the repository',
    'README.md:5: //cdn.example.com/x.js leaves the repository',
  ]);
  // One level up from docs/ is the root; two levels up is outside it.
  expect(linkProblem('docs/api.md', '../openapi.yaml')).toBeUndefined();
  expect(linkProblem('docs/api.md', '../../shared/SPEC.md')).toBe('leaves the repository');
});

test('every "SPEC n" or "SPEC n.m" the docs cite is a section of docs/contract.md', () => {
  const sections = new Set(
    read('docs/contract.md')
      .split('\n')
      .flatMap((line) => /^#{2,3} (\d+(?:\.\d+)?)\.? /.exec(line)?.[1] ?? []),
  );
  expect(sections).toEqual(
    new Set([
      '1',
      '2',
      '3',
      '3.1',
      '3.2',
      '3.3',
      '3.4',
      '3.5',
      '4',
      '5',
      '6',
      '6.1',
      '7',
      '8',
      '9',
      '10',
    ]),
  );
  const cited = [...DOCS, 'openapi.yaml'].flatMap((file) =>
    [
      ...read(file).matchAll(
        /\bSPEC(?:\s+sections?)?\s+(\d+(?:\.\d+)?(?:(?:,\s*|\s+and\s+|\s+to\s+)\d+(?:\.\d+)?)*)/g,
      ),
    ].flatMap((m) => [...m[1]!.matchAll(/\d+(?:\.\d+)?/g)].map((n) => `${file}: SPEC ${n[0]}`)),
  );
  expect(cited.length).toBeGreaterThan(40);
  expect(cited.filter((citation) => !sections.has(citation.split('SPEC ')[1]!))).toEqual([]);
});

test('openapi.yaml points at the contract in the repository, not outside it', () => {
  const openapi = read('openapi.yaml');
  expect(openapi).not.toContain('../shared');
  expect(openapi).not.toContain('SPEC.md');
  expect(openapi).toContain('docs/contract.md');
});
