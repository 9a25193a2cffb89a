/**
 * Figures the code defines, as docs/operations.md states them: a statement of a figure that the
 * code no longer has fails here instead of misleading an operator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOKEN_VALIDITY } from '../../lib/identity';
import { TABLE_OPERATIONS } from '../../lib/monitoring';
import { PROJECT_ROOT } from '../../lib/project-root';
import { DEMO_OBJECT_KEYS } from '../../local/s3';

const operations = readFileSync(join(PROJECT_ROOT, 'docs', 'operations.md'), 'utf8');

test('the access token lifetime', () => {
  expect(operations).toContain(`valid for ${TOKEN_VALIDITY.toMinutes()} minutes`);
  expect(operations).not.toMatch(/valid for one hour/);
});

test('the operations the DynamoDB system-error alarm sums', () => {
  const names = TABLE_OPERATIONS.join(', ').replace(/, (\w+)$/, ' or $1');
  expect(operations).toContain(`any internal error of ${names}`);
  expect(operations).toContain(TABLE_OPERATIONS.map((op) => `FILL(systemError${op},0)`).join('+'));
});

/** The deploy guide, from its heading to the next section of the same level. */
function deploySection(): string {
  const start = operations.indexOf('## Deploying to AWS');
  const end = operations.indexOf('\n## ', start + 1);
  return operations.slice(start, end);
}

test('the deploy guide uploads every demo file the demo data points to, as the local stack does', () => {
  const uploaded = [
    ...deploySection().matchAll(/aws s3 cp \S+ "s3:\/\/\$BUCKET_NAME\/([^"]+)"/g),
  ].map((m) => m[1]);
  expect(uploaded.length).toBeGreaterThan(0);
  for (const key of DEMO_OBJECT_KEYS) expect(uploaded).toContain(key);
});

test('the deploy guide names the approval prompt and what --require-approval can be', () => {
  const section = deploySection().replace(/\s+/g, ' ');
  expect(section).toContain('Do you wish to deploy these changes (y/n)?');
  for (const level of ['never', 'any-change', 'broadening', 'destructive'])
    expect(section).toMatch(new RegExp('`(--require-approval )?' + level + '`'));
});
