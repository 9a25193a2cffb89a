/**
 * The rooms of the code and which way their imports point (docs/architecture.md): every room
 * names the rooms it may import, so that arrows point down; lib/ holds only CDK code; no circle
 * of imports. A file over 400 lines is named as a warning: a file is as long as its one job.
 */
import { readdirSync, readFileSync, writeSync } from 'node:fs';
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
const textOfDoc = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
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

const roomOf = (file: string) => (file.includes('/') ? file.split('/')[0]! : '(top)');

/**
 * Each room and the rooms it may import, from the bottom up: core/ (the domain), import/ (the
 * import engine), stage/ (what a stage is), the page and its sign-in, the Lambda functions, the
 * CDK code, the local rig, the operator's commands, their entry points, the bench; test/ may
 * import any room.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  import: ['core'],
  stage: ['core', 'import'],
  'sign-in': ['core', 'stage'],
  client: ['core'],
  'staff-app': ['core', 'client', 'sign-in', 'stage'],
  functions: ['core', 'import'],
  lib: ['core', 'import', 'stage', 'staff-app'],
  local: ['core', 'import', 'stage', 'sign-in', 'staff-app', 'functions'],
  commands: ['core', 'import', 'stage', 'sign-in', 'local'],
  bin: ['core', 'import', 'stage', 'sign-in', 'lib', 'local', 'commands'],
  bench: ['core', 'import', 'stage', 'functions', 'lib', 'local', 'commands'],
  test: ['*'],
  '(top)': ['*'],
};

test('every room is named, and imports only the rooms below it', () => {
  expect([...new Set(FILES.map(roomOf))].filter((room) => !(room in MAY_IMPORT))).toEqual([]);
  const upward = FILES.flatMap((file) => {
    const allowed = MAY_IMPORT[roomOf(file)]!;
    if (allowed.includes('*')) return [];
    return importsOf(file)
      .files.filter((target) => roomOf(target) !== roomOf(file))
      .filter((target) => !allowed.includes(roomOf(target)))
      .map((target) => `${file} -> ${target}`);
  });
  expect(upward).toEqual([]);
});

/**
 * Rooms inside rooms: each folder of functions/, local/ and commands/, and `(top)` for the files
 * beside those folders, with what each may import within its room. In functions/ the top files
 * are the entry points; in local/ and commands/ they are the small shared helpers.
 */
const INNER: Record<string, Record<string, readonly string[]>> = {
  functions: { sdk: [], shared: ['sdk'], '(top)': ['shared'] },
  local: {
    '(top)': [],
    tools: ['(top)'],
    s3: ['(top)'],
    dynamodb: ['(top)'],
    cognito: ['(top)'],
    gateway: ['(top)', 'tools'],
    'step-functions': ['(top)', 's3', 'tools'],
    rig: ['(top)', 'cognito', 'dynamodb', 'gateway', 's3', 'step-functions', 'tools'],
  },
  commands: {
    '(top)': [],
    access: ['(top)'],
    audit: ['(top)', 'access'],
    token: ['(top)', 'access'],
    docs: ['(top)'],
    files: ['(top)'],
    import: ['(top)'],
    smoke: ['(top)'],
    'stack-trace': ['(top)'],
  },
};

const innerRoomOf = (file: string) => {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : '(top)';
};

test('inside functions/, local/ and commands/, every folder is named and imports point down', () => {
  const inside = FILES.filter((file) => roomOf(file) in INNER);
  const unnamed = inside.filter((file) => !(innerRoomOf(file) in INNER[roomOf(file)]!));
  expect(unnamed).toEqual([]);
  const upward = inside.flatMap((file) => {
    const room = roomOf(file);
    const from = innerRoomOf(file);
    return importsOf(file)
      .files.filter((target) => roomOf(target) === room && innerRoomOf(target) !== from)
      .filter((target) => !INNER[room]![from]!.includes(innerRoomOf(target)))
      .map((target) => `${file} -> ${target}`);
  });
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

/** docs/architecture.md's two walks: each names files that exist, none twice in one walk. */
test("the architecture's two walks name real files, each once", () => {
  const doc = textOfDoc('docs/architecture.md');
  const section = doc.slice(
    doc.indexOf('## Two walks through the code'),
    doc.indexOf('## Key design'),
  );
  const walks = section.split(/\n\*\*/).slice(1);
  expect(walks).toHaveLength(2);
  for (const walk of walks) {
    const named = [...walk.matchAll(/`([a-z-]+\/[\w/.-]+\.ts)`/g)].map((m) => m[1]!);
    // Only full paths are checked. A bare name such as `<name>.ts` after a path names a file
    // beside that one.
    expect(named.length).toBeGreaterThan(15);
    expect(named.filter((file) => !known.has(file))).toEqual([]);
    expect(named.filter((file, i) => named.indexOf(file) !== i)).toEqual([]);
  }
});

/** A warning, not a failure: a file is as long as its one job, and none is trimmed to a number. */
afterAll(() => {
  const long = FILES.filter((file) => !GENERATED.has(file))
    .map((file) => [file, textOf.get(file)!.split('\n').length - 1] as const)
    .filter(([, lines]) => lines > 400);
  // Straight to the terminal: the quiet environment keeps a passing test's console to itself.
  for (const [file, lines] of long)
    writeSync(2, `warning: ${file}: ${lines} lines (over 400: does it do one job?)\n`);
});

test('the checks see the rooms they check (they can fail)', () => {
  expect(FILES.length).toBeGreaterThan(200);
  expect(importsOf('lib/api.ts').packages).toContain('aws-cdk-lib');
  expect(importsOf('local/rig/rig.ts').files).toContain('functions/shared/document-client.ts');
  expect(importsOf('stage/import-workflow.ts').files).toContain('import/steps/step.ts');
  expect(importsOf('functions/shared/store.ts').files).toContain(
    'functions/sdk/attribute-values.ts',
  );
});
