/**
 * The approval checklist (docs/operations/first-deploy.md, "The approval checklist") equals what
 * `cdk deploy`'s security diff prints on a first deploy of every stage. The rows are computed as
 * the CDK CLI computes them, with the package it prints them with (@aws-cdk/cloudformation-diff):
 * `fullDiff` of an empty template (a new stack) against the synthesized one, "IAM Statement
 * Changes" and "IAM Policy Changes" summarized, each `${LogicalId}` replaced by the construct path
 * by the package's own Formatter, from the same logical-id metadata the CLI reads. That is every
 * identity policy, trust policy, managed policy, bucket, topic, queue and key policy statement and
 * Lambda permission. Each row must be a row of the page's tables, and each row of the page a row of
 * some stage's diff.
 *
 * The page's tables have the diff's columns (Resource, Effect, Action, Principal, Condition; or
 * Resource, Managed Policy ARN), and any columns after them are for the reader. A cell is a set of
 * code spans, written as the CLI prints them (a condition as `Operator key value`, a list value
 * joined by ", "); `or` between code spans gives alternatives, and a table row stands for every
 * combination of its cells' alternatives, each of which must be a row of some stage. The stack's
 * name is written `<stack>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Formatter, fullDiff, type TemplateDiff } from '@aws-cdk/cloudformation-diff';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { EVERY_OPTION_CONTEXT, synthesize, THREE_STAGES } from '../synth.ts';

const STAGES = [
  ...THREE_STAGES,
  // Every setting that adds resources, set: the page must hold for these too.
  [
    'a named stage with every option and enforced threat protection',
    { ...EVERY_OPTION_CONTEXT, stage: 'options', threatProtection: 'enforced' },
  ],
] as const;

const PAGE = 'docs/operations/first-deploy.md';
const HEADING = '## The approval checklist';
const STATEMENT_COLUMNS = ['Resource', 'Effect', 'Action', 'Principal', 'Condition'];
const MANAGED_COLUMNS = ['Resource', 'Managed Policy ARN'];

/** A row as a key: each cell a sorted set of values. */
type Cells = string[][];
const keyOf = (cells: Cells): string => JSON.stringify(cells.map((c) => [...c].sort()));

interface Diffed {
  statements: Cells[];
  managed: Cells[];
  diff: TemplateDiff;
}

/** The security rows `cdk deploy` prints for a first deploy of the stage. */
function securityRows(context: Record<string, unknown>): Diffed {
  const { assembly, stack } = synthesize({ context });
  const artifact = assembly.getStackArtifact(stack.artifactId);
  // Read from the file, as the CLI does: no check's copy in memory.
  const template = JSON.parse(readFileSync(artifact.templateFullPath, 'utf8')) as {
    Resources: Record<string, unknown>;
  };
  // The CLI's logical id to construct path map (toolkit-lib's buildLogicalToPathMap).
  const paths: Record<string, string> = {};
  for (const entry of artifact.findMetadataByType('aws:cdk:logicalId'))
    if (typeof entry.data === 'string' && entry.data in template.Resources)
      paths[entry.data] = entry.path;
  const diff = fullDiff({}, template);
  const formatter = new Formatter(process.stdout, paths, diff);
  // eslint-disable-next-line no-control-regex -- the CLI colours each cell
  const plain = (cell: string) => cell.replace(/\u001b\[[0-9;]*m/g, '');
  const stackName = new RegExp(
    stack.stackName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(?![A-Za-z0-9])',
    'g',
  );
  const rows = (table: string[][]) =>
    formatter
      .deepSubstituteBracedLogicalIds(table)
      .slice(1)
      .map((row) => row.slice(1).map((cell) => plain(cell).replace(stackName, '<stack>')));
  return {
    diff,
    statements: rows(diff.iamChanges.summarizeStatements()).map(
      ([resource, effect, action, principal, condition]) => [
        lines(resource!),
        [effect!],
        lines(action!),
        lines(principal!),
        conditionOf(condition!),
      ],
    ),
    managed: rows(diff.iamChanges.summarizeManagedPolicies()).map(([resource, arn]) => [
      [resource!],
      [arn!],
    ]),
  };
}

const lines = (cell: string): string[] => (cell === '' ? [] : cell.split('\n'));

/** The CLI's condition cell (a JSON object without its braces) as `Operator key value` items. */
function conditionOf(cell: string): string[] {
  if (cell === '') return [];
  const parsed = JSON.parse(`{${cell}}`) as Record<string, Record<string, unknown>>;
  return Object.entries(parsed).flatMap(([operator, keys]) =>
    Object.entries(keys).map(
      ([key, value]) =>
        `${operator} ${key} ${Array.isArray(value) ? value.join(', ') : String(value)}`,
    ),
  );
}

/** The checklist's table rows, each expanded to every row it stands for. */
function pageRows(): { statements: PageRow[]; managed: PageRow[] } {
  const doc = readFileSync(join(PROJECT_ROOT, PAGE), 'utf8');
  const start = doc.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`${PAGE} has no section "${HEADING}"`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const found = { statements: [] as PageRow[], managed: [] as PageRow[] };
  let columns: string[] | undefined;
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) {
      columns = undefined;
      continue;
    }
    const cells = line
      .slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (columns === undefined) {
      columns = cells;
      continue;
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    const table = starts(columns, STATEMENT_COLUMNS)
      ? found.statements
      : starts(columns, MANAGED_COLUMNS)
        ? found.managed
        : undefined;
    if (!table) continue;
    const width = table === found.statements ? STATEMENT_COLUMNS.length : MANAGED_COLUMNS.length;
    const alternatives = cells
      .slice(0, width)
      .map((cell, i) =>
        table === found.statements && i === 1 ? [[cell.replace(/`/g, '')]] : spans(cell),
      );
    table.push({
      line: line.replace(/\s{2,}/g, ' ').trim(),
      rows: product(alternatives).map(keyOf),
    });
  }
  return found;
}

interface PageRow {
  line: string;
  rows: string[];
}

const starts = (columns: string[], expected: string[]) =>
  expected.every((name, i) => columns[i]?.toLowerCase() === name.toLowerCase());

/** A cell's alternatives (split at `or`), each the set of its code spans. */
function spans(cell: string): string[][] {
  const alternatives: string[][] = [[]];
  for (const m of cell.matchAll(/`([^`]+)`|\bor\b/g))
    if (m[1] !== undefined) alternatives.at(-1)!.push(m[1].replace(/\\\|/g, '|'));
    else alternatives.push([]);
  const filled = alternatives.filter((a) => a.length > 0);
  return filled.length > 0 ? filled : [[]];
}

function product(cells: string[][][]): Cells[] {
  return cells.reduce<Cells[]>(
    (rows, alternatives) => rows.flatMap((row) => alternatives.map((a) => [...row, a])),
    [[]],
  );
}

/** A diff row as a table row of the page, ready to paste. */
function asMarkdown(cells: Cells, statement: boolean): string {
  const cell = (values: string[], i: number) =>
    statement && i === 1
      ? values.join('')
      : values.map((v) => '`' + v.replace(/\|/g, '\\|') + '`').join(', ');
  return `| ${cells.map(cell).join(' | ')} | |`;
}

const diffs = new Map<string, Diffed>();
const rowsOf = (name: string, context: Record<string, unknown>) => {
  if (!diffs.has(name)) diffs.set(name, securityRows(context));
  return diffs.get(name)!;
};

describe('the approval checklist', () => {
  test.each(STAGES)('%s: the page names every row of the security diff', (name, context) => {
    const { statements, managed, diff } = rowsOf(name, context);
    expect(statements.length).toBeGreaterThan(0);
    expect(diff.permissionsBroadened).toBe(true);
    // No security group and no IAM Identity Center rows: the page has no table for them.
    expect(diff.securityGroupChanges.hasChanges).toBe(false);
    expect(diff.iamChanges.ssoPermissionSets.hasChanges).toBe(false);
    expect(diff.iamChanges.ssoAssignments.hasChanges).toBe(false);
    expect(diff.iamChanges.ssoInstanceACAConfigs.hasChanges).toBe(false);
    const page = pageRows();
    const named = new Set([...page.statements, ...page.managed].flatMap((r) => r.rows));
    const unnamed = [
      ...statements.filter((r) => !named.has(keyOf(r))).map((r) => asMarkdown(r, true)),
      ...managed.filter((r) => !named.has(keyOf(r))).map((r) => asMarkdown(r, false)),
    ];
    if (unnamed.length > 0)
      throw new Error(
        `${name}: ${unnamed.length} row(s) of the security diff that ${PAGE} ("${HEADING}") ` +
          `does not name; add each to its table (or widen a row's alternatives), with why:\n` +
          unnamed.join('\n'),
      );
  });

  test("deploy-day step 7 sets an alarm that every stage has, by the stage's name", () => {
    const doc = readFileSync(join(PROJECT_ROOT, PAGE), 'utf8');
    const step = doc.slice(doc.indexOf('### 7. Prove an alarm e-mail arrives'));
    const alarm = /^ALARM="\$STACK(-[\w-]+)"$/m.exec(step)?.[1];
    expect(alarm).toBeDefined();
    expect(step).toContain(
      'aws cloudwatch set-alarm-state --alarm-name "$ALARM" --state-value ALARM',
    );
    for (const [, context] of STAGES) {
      const { json, stack } = synthesize({ context });
      const names = Object.values(json.Resources)
        .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
        .map((r) => r.Properties!.AlarmName as unknown);
      expect(names).toContain(`${stack.stackName}${alarm}`);
    }
  });

  test('every row of the page is a row of some stage', () => {
    const all = new Set(
      STAGES.flatMap(([name, context]) => {
        const { statements, managed } = rowsOf(name, context);
        return [...statements, ...managed].map(keyOf);
      }),
    );
    const page = pageRows();
    expect(page.statements.length).toBeGreaterThan(0);
    expect(page.managed.length).toBeGreaterThan(0);
    const stale = [...page.statements, ...page.managed].flatMap((row) =>
      row.rows.filter((r) => !all.has(r)).map((r) => `${row.line}\n    stands for ${r}`),
    );
    if (stale.length > 0)
      throw new Error(
        `${stale.length} row(s) of ${PAGE} ("${HEADING}") that no stage's diff has; ` +
          `remove or correct them:\n` +
          stale.join('\n'),
      );
  });
});
