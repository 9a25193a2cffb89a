/**
 * The rooms of the code and which way their imports point (docs/architecture.md): the domain and
 * what the page, the import and the local tools need of a stage sit below lib/, functions/ and
 * local/ and import none of them; lib/ holds only CDK code; no circle of imports; no hand-written
 * source file grows past 400 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';

/** Written by a tool (`npm run types`), not by hand. */
const GENERATED = new Set(['client/openapi-types.ts']);
const SKIPPED = new Set(['node_modules', 'cdk.out', 'dist', 'coverage']);

/** Every TypeScript source of the repository, as a path from its root. */
function sources(dir = PROJECT_ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')
      ? [relative(PROJECT_ROOT, path)]
      : [];
  });
}

const FILES = sources();
const known = new Set(FILES);
const textOf = new Map(FILES.map((file) => [file, readFileSync(join(PROJECT_ROOT, file), 'utf8')]));

/** What a file imports: packages by name, repository files by path (type-only imports too). */
function importsOf(file: string): { packages: string[]; files: string[] } {
  const specifiers = [
    ...textOf.get(file)!.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?['"]([^'"]+)['"]/g),
    ...textOf.get(file)!.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1]!);
  const packages = specifiers.filter((s) => !s.startsWith('.'));
  const files = specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => normalize(join(dirname(file), s)).replace(/\.js$/, ''))
    .map((path) => [`${path}.ts`, `${path}.tsx`, path].find((candidate) => known.has(candidate)))
    .filter((path): path is string => path !== undefined);
  return { packages, files };
}

const roomOf = (file: string) => file.split('/')[0]!;
/** Rooms below lib/, functions/ and local/: none of them may import from those. */
const LOWER = ['core', 'stage', 'import', 'sign-in', 'staff-app', 'client'];
const UPPER = ['lib', 'functions', 'local'];

test('no file of a lower room imports from lib/, functions/ or local/', () => {
  const upward = FILES.filter((file) => LOWER.includes(roomOf(file))).flatMap((file) =>
    importsOf(file)
      .files.filter((target) => UPPER.includes(roomOf(target)))
      .map((target) => `${file} -> ${target}`),
  );
  expect(upward).toEqual([]);
});

test('every file in lib/ is CDK code: it imports aws-cdk-lib or constructs', () => {
  const plain = FILES.filter((file) => roomOf(file) === 'lib').filter(
    (file) => !importsOf(file).packages.some((p) => /^(aws-cdk-lib|constructs)(\/|$)/.test(p)),
  );
  expect(plain).toEqual([]);
});

test('no circle of imports', () => {
  const graph = new Map(FILES.map((file) => [file, importsOf(file).files]));
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open')
        circles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of FILES) if (!state.has(file)) visit(file);
  expect(circles).toEqual([]);
});

test('no hand-written source file is over 400 lines', () => {
  const long = FILES.filter((file) => !GENERATED.has(file))
    .map((file) => [file, textOf.get(file)!.split('\n').length - 1] as const)
    .filter(([, lines]) => lines > 400);
  expect(long).toEqual([]);
});

test('the checks see the rooms they check (they can fail)', () => {
  expect(FILES.length).toBeGreaterThan(200);
  expect(importsOf('lib/api.ts').packages).toContain('aws-cdk-lib');
  expect(importsOf('local/stack/stack.ts').files).toContain('functions/shared/document-client.ts');
  expect(importsOf('stage/import-workflow.ts').files).toContain('import/steps/step.ts');
});
