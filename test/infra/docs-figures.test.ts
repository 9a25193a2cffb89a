/**
 * Figures the code defines, as docs/operations.md states them: a statement of a figure that the
 * code no longer has fails here instead of misleading an operator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOKEN_VALIDITY } from '../../lib/identity';
import { TABLE_OPERATIONS } from '../../lib/monitoring';
import { PROJECT_ROOT } from '../../lib/project-root';

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
