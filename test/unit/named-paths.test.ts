/**
 * Issue 56: every path a comment or a doc names is there.
 *
 * What is read: the comments of the repository's code (TypeScript, JavaScript, shell scripts),
 * all of its YAML and JSON but the lockfile, and every Markdown file. Folders .gitignore names
 * (node_modules/, .local/, bench/.work/ ...) and .git/ are not read.
 *
 * What counts as a path:
 * - A repository path: a word with a slash whose first segment is a top-level entry of the
 *   repository (`functions/shared/http.ts`, `local/gateway/`, `docs/performance.md`). A decision
 *   may be named by its number (`docs/decisions/0027`). Paths into a folder .gitignore names are
 *   written at run time, so they are not checked.
 * - A relative path (`./rooms.test.ts`, `../support/transform.js`), from the naming file's
 *   folder, or from the root when it starts with a top-level entry, as a command names it. Like
 *   an import, it may leave out its .ts.
 * - In code comments and in the READMEs beside code: a bare TypeScript or Markdown file name
 *   (`docs-links.test.ts`, `README.md`). It names the file beside the naming one, or at the root.
 *   A bare .js or .mjs name is a bundle's, written by a build, so it is not checked.
 * In a Markdown code block only repository paths count: the rest is the reader's own code. A word
 * with a placeholder or a wildcard (`<id>`, `*`, `{name}`, `$x`) is a pattern, not a path.
 * Anything else (URLs, routes such as `/app/`, packages such as `@aws-sdk/client-s3`, S3 keys such
 * as `reports/<id>.json`) is not a path.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';

const read = (file: string): string => readFileSync(join(PROJECT_ROOT, file), 'utf8');

/** The folder names .gitignore lists: what is in them is written at run time, not kept. */
const IGNORED = new Set([
  '.git',
  ...read('.gitignore')
    .split('\n')
    .filter((line) => line.endsWith('/'))
    .map((line) => line.slice(0, -1).split('/').pop()!),
]);

/** The repository's files, as paths from its root, those in ignored folders left out. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true })
    .filter((entry) => !IGNORED.has(entry.name))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      return entry.isDirectory() ? filesUnder(path) : [path];
    });
}

const FILES = filesUnder('');
const TOP_LEVEL = new Set(FILES.map((file) => file.split('/')[0]!));

type Kind = 'code' | 'shell' | 'text' | 'markdown';

/** How a file is read, or undefined when it is not. */
function kindOf(file: string): Kind | undefined {
  if (/\.(?:[cm]?[jt]s|tsx)$/.test(file)) return 'code';
  if (file === 'package-lock.json') return undefined;
  if (/\.(?:ya?ml|json)$/.test(file)) return 'text';
  if (file.endsWith('.md')) return 'markdown';
  if (!/\.[a-z]+$/.test(file.split('/').pop()!) && read(file).startsWith('#!')) return 'shell';
  return undefined;
}

/** What a slash after it starts a regular expression, not a division: an operator or a keyword. */
const BEFORE_REGEX =
  /(?:[([{,;:=!&|?+\-*%<>~^]|(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|void|yield|await|delete|throw|new))$/;

/**
 * The comments of a JavaScript or TypeScript text, in place: everything else is blanked out, line
 * breaks kept, so that a line of the result is that line's comment text. Strings, template
 * literals and regular expressions are skipped, so `'//'` or `/\/*\//` open no comment.
 */
export function commentsOf(code: string): string[] {
  const comments: [number, number][] = [];
  // Each open template literal's depth of `${` braces, innermost last.
  const templates: number[] = [];
  const next = /[/'"`{}]/g;
  let i = 0;
  /** From inside a string to after its closing quote. */
  const skipString = (quote: string) => {
    for (i++; i < code.length && code[i] !== quote && code[i] !== '\n'; i++)
      if (code[i] === '\\') i++;
    i++;
  };
  /** From inside a template literal to after its end or its next `${`. */
  const skipTemplate = () => {
    for (; i < code.length; i++) {
      if (code[i] === '\\') i++;
      else if (code[i] === '`') {
        i++;
        templates.pop();
        return;
      } else if (code[i] === '$' && code[i + 1] === '{') {
        i += 2;
        return;
      }
    }
  };
  /** Whether a slash at `i` starts a regular expression, by the code before it. */
  const startsRegex = () => {
    let j = i - 1;
    while (j >= 0 && (code[j] === ' ' || code[j] === '\t' || code[j] === '\n')) j--;
    return j < 0 || BEFORE_REGEX.test(code.slice(Math.max(0, j - 10), j + 1));
  };
  for (next.lastIndex = 0; next.exec(code) !== null; next.lastIndex = i) {
    i = next.lastIndex - 1;
    const c = code[i]!;
    if (c === '/' && code[i + 1] === '/') {
      const end = code.indexOf('\n', i);
      comments.push([i, end === -1 ? code.length : end]);
      i = end === -1 ? code.length : end;
    } else if (c === '/' && code[i + 1] === '*') {
      const close = code.indexOf('*/', i + 2);
      comments.push([i, close === -1 ? code.length : close + 2]);
      i = close === -1 ? code.length : close + 2;
    } else if (c === "'" || c === '"') skipString(c);
    else if (c === '`') {
      templates.push(0);
      i++;
      skipTemplate();
    } else if (c === '{') {
      if (templates.length > 0) templates[templates.length - 1]!++;
      i++;
    } else if (c === '}') {
      i++;
      if (templates.length === 0) continue;
      if (templates[templates.length - 1] === 0) skipTemplate();
      else templates[templates.length - 1]!--;
    } else if (startsRegex()) {
      let inClass = false;
      for (i++; i < code.length && code[i] !== '\n'; i++) {
        if (code[i] === '\\') i++;
        else if (code[i] === '[') inClass = true;
        else if (code[i] === ']') inClass = false;
        else if (code[i] === '/' && !inClass) break;
      }
      i++;
    } else i++;
  }
  const blank = (text: string) => text.replace(/[^\n]/g, ' ');
  let kept = '';
  let at = 0;
  for (const [from, to] of comments) {
    kept += blank(code.slice(at, from)) + code.slice(from, to);
    at = to;
  }
  return (kept + blank(code.slice(at))).split('\n');
}

/** The comments of a shell script, in place: from a `#` at a line's start or after a space. */
const hashCommentsOf = (text: string): string[] =>
  text.split('\n').map((line) => {
    const at = line.search(/(?:^|\s)#/);
    return at === -1 ? '' : ' '.repeat(at) + line.slice(at);
  });

/**
 * A word that may be a path: file-name characters and slashes, with nothing before it that makes
 * it part of a URL (`https://`), a route (`/app/`) or a longer word.
 */
const WORD = /(?<![\w.@/:~$<>*{}-])[\w.@<>*{}$~-]+(?:\/[\w.@<>*{}$~-]*)*/g;
const PATTERN = /[<>*{}$~]|\.\.\.|…/;
/** A source file's name: TypeScript or Markdown (a .js or .mjs one is a bundle's, written by a build). */
const SOURCE_NAME = /^(?:[a-z0-9][\w.-]*|[A-Z][A-Z0-9_]*)\.(?:tsx?|md)$/;

/**
 * Where a word may point, from the repository root (it is there if one of them is), or undefined
 * when the word names no path. `bareNames`: whether a bare file name counts.
 */
function placesOf(file: string, path: string, bareNames: boolean): string[] | undefined {
  if (path === '' || PATTERN.test(path)) return undefined;
  const segments = path.split('/');
  if (path.startsWith('./') || path.startsWith('../')) {
    const fromFolder = relative(PROJECT_ROOT, resolve(PROJECT_ROOT, dirname(file), path)) || '.';
    // A command run at the root names a file as `./test/support/fixed-clock.ts`.
    return segments[0] === '.' && TOP_LEVEL.has(segments[1]!)
      ? [fromFolder, normalize(path)]
      : [fromFolder];
  }
  if (segments.length > 1)
    return TOP_LEVEL.has(segments[0]!) && !segments.some((segment) => IGNORED.has(segment))
      ? [normalize(path)]
      : undefined;
  // Beside the naming file, or a top-level file such as README.md or jest.config.js.
  if (bareNames && SOURCE_NAME.test(path)) return [join(dirname(file), path), path];
  return undefined;
}

/**
 * Whether a path is there: as named, as a module named without its .ts or by its .js, or as a
 * decision named by its number (`docs/decisions/0027`).
 */
function exists(path: string): boolean {
  if (
    [path, `${path}.ts`, path.replace(/\.js$/, '.ts')].some((candidate) =>
      existsSync(join(PROJECT_ROOT, candidate)),
    )
  )
    return true;
  const number = /^(.*)\/(\d{4})$/.exec(path);
  return (
    number !== null &&
    existsSync(join(PROJECT_ROOT, number[1]!)) &&
    readdirSync(join(PROJECT_ROOT, number[1]!)).some((name) => name.startsWith(`${number[2]}-`))
  );
}

/** Which lines of a Markdown text are in fenced code blocks. */
function fencedLines(markdown: string): boolean[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (marker !== undefined) fence = marker;
      return marker !== undefined;
    }
    if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length)
      fence = undefined;
    return true;
  });
}

/**
 * Every missing path a text names, as `<file>:<line>: <path as written>`, followed by where it
 * was looked for when that is not as written. In a Markdown file's code blocks only repository
 * paths count: a relative path or a bare name there is the reader's, as in an example of their
 * own code.
 */
export function missingPaths(file: string, text: string, kind: Kind): string[] {
  const lines =
    kind === 'code' ? commentsOf(text) : kind === 'shell' ? hashCommentsOf(text) : text.split('\n');
  const fenced = kind === 'markdown' ? fencedLines(text) : [];
  // The READMEs beside code name its files by their names; docs/ and README.md name other folders'.
  const bareNamesHere = kind !== 'markdown' || (file.includes('/') && !file.startsWith('docs/'));
  return lines.flatMap((line, index) =>
    [...line.matchAll(WORD)].flatMap(([word]) => {
      const path = word.replace(/[.,;:]+$/, '');
      if (fenced[index] === true && !/^[\w@-]/.test(path)) return [];
      const places = placesOf(file, path, bareNamesHere && fenced[index] !== true);
      if (places === undefined || places.some(exists)) return [];
      return [`${file}:${index + 1}: ${path}${places[0] === path ? '' : ` (${places[0]})`}`];
    }),
  );
}

test('every path a comment or a doc names is there', () => {
  const scanned = FILES.flatMap((file) => {
    const kind = kindOf(file);
    return kind === undefined ? [] : [{ file, kind }];
  });
  expect(scanned.map(({ file }) => file)).toEqual(
    expect.arrayContaining([
      '.ci/run',
      'README.md',
      'bench/README.md',
      'docs/performance.md',
      'functions/sdk/README.md',
      'local/gateway/gateway.ts',
      'openapi.yaml',
      'test/support/sequencer.js',
    ]),
  );
  expect(scanned.flatMap(({ file, kind }) => missingPaths(file, read(file), kind))).toEqual([]);
});

test('the check finds missing paths, and passes what is there or is not a path', () => {
  const code = [
    '// See functions/shared/nothing.ts and local/gateway/gateway-routing.ts, or docs/nothing/.',
    '/* ./gone.ts, ../sdk/nothing.ts, routing.ts and ../../core/routes.ts; gone-too.ts. */',
    "const url = 'http://example.com/docs/x.md'; // https://example.com/local/x.ts",
    '// Not paths: @aws-sdk/client-s3, reports/<id>.json, .local/audit/, bench/.work/x.json,',
    '// /app/config.json, demo-totp.json, index.mjs, Node.js, docs/decisions/*.md, import/{id}/x.ts.',
    "const s = '// functions/nothing.ts' + `${'/* local/nothing.ts */'}`; const r = /\\/\\/ core\\/x.ts/;",
    'const q = a / b; // core/routes.ts and ../net.ts are there, and so is ../net, as imported.',
    '// So are README.md, docs/decisions/0027 and ./test/support/fixed-clock.ts; docs/decisions/9999',
    '// is not.',
  ].join('\n');
  expect(missingPaths('local/gateway/x.ts', code, 'code')).toEqual([
    'local/gateway/x.ts:1: functions/shared/nothing.ts',
    'local/gateway/x.ts:1: local/gateway/gateway-routing.ts',
    'local/gateway/x.ts:1: docs/nothing/',
    'local/gateway/x.ts:2: ./gone.ts (local/gateway/gone.ts)',
    'local/gateway/x.ts:2: ../sdk/nothing.ts (local/sdk/nothing.ts)',
    'local/gateway/x.ts:2: gone-too.ts (local/gateway/gone-too.ts)',
    'local/gateway/x.ts:8: docs/decisions/9999',
  ]);
  const markdown = [
    'See `docs/nothing.md`, [up](../README.md), [gone](./gone.md) and handler.ts.',
    '```ts',
    "import type { paths } from './my-api'; // npx tsx bin/nothing.ts",
    '```',
  ].join('\n');
  expect(missingPaths('docs/x.md', markdown, 'markdown')).toEqual([
    'docs/x.md:1: docs/nothing.md',
    'docs/x.md:1: ./gone.md (docs/gone.md)',
    'docs/x.md:3: bin/nothing.ts',
  ]);
  expect(missingPaths('bench/README.md', 'Run `gone.ts` beside `run.ts`.', 'markdown')).toEqual([
    'bench/README.md:1: gone.ts (bench/gone.ts)',
  ]);
});
