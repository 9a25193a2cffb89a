/**
 * docs/import.md is enough to write a valid file: its examples import as they are, and its field
 * tables name every field of each record, no more and no fewer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTimeCodec } from '../../core/times.ts';
import { createLineParser } from '../../import/records.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { currencyLine, customer, line, riskAssessment, transaction } from '../fixtures.ts';

const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'import.md'), 'utf8');
const parse = createLineParser(createTimeCodec('UTC'));
const problemsOf = (text: string) => {
  const parsed = parse(text);
  return parsed.ok ? [] : parsed.problems.map((p) => `${p.path}: ${p.reason}`);
};

test('every example line of docs/import.md is valid, written on one line', () => {
  const examples = [...doc.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => JSON.parse(m[1]!) as Record<string, unknown>)
    .filter((value) => ['transaction', 'customer', 'delete'].includes(Object.keys(value)[0]!));
  expect(examples.map((value) => Object.keys(value)[0])).toEqual([
    'transaction',
    'customer',
    'delete',
  ]);
  for (const example of examples) expect(problemsOf(JSON.stringify(example))).toEqual([]);
});

/** The field names in the first column of the table under a bold title. */
function tableFields(title: string): string[] {
  const start = doc.indexOf(`**${title}**`);
  expect(start).toBeGreaterThan(0);
  const rows = doc.slice(start).split('\n\n')[1]!.split('\n').slice(2);
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
}

test.each([
  ['Transaction', Object.keys(transaction())],
  ['Currency line', Object.keys(currencyLine(1))],
  ['Customer', Object.keys(customer())],
  ['Risk assessment', Object.keys(riskAssessment(1, 1))],
])("the table of a %s's fields names each of them once", (title, fields) => {
  expect(tableFields(title).sort()).toEqual([...fields].sort());
});

test('a customer without a middle name or risk assessments, as docs/import.md writes one', () => {
  const text = line('customer', customer({ middle_name: '', customer_risk_assessments: [] }));
  expect(problemsOf(text)).toEqual([]);
  expect(problemsOf(line('customer', customer({ middle_name: null })))).toEqual([
    'customer.middle_name: must be a string',
  ]);
});
