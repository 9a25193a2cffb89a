/**
 * Figures the code defines, as README.md and docs/ state them: every statement of such a
 * figure is built here from the constant that defines it (or from the synthesized template), so
 * that changing the code's figure without the docs fails here instead of misleading a reader.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITIES, type Entity } from '../../../core/entities.ts';
import { MAX_ID } from '../../../core/ids.ts';
import { MAX_ITEM_BYTES, itemOf, itemSize, priorBytes } from '../../../core/layout.ts';
import { VERSION_FOR_SIZE } from '../../../core/import-version.ts';
import { createTimeCodec } from '../../../core/times.ts';
import { createLineParser } from '../../../import/records.ts';
import { currencyLine, customer, line, riskAssessment, transaction } from '../../fixtures.ts';
import { DEFAULT_READ_BUDGETS, READ_BUDGET_LIMITS } from '../../../core/read-budgets.ts';
import { MAX_CHILDREN } from '../../../core/records.ts';
import { URL_TTL_SECONDS } from '../../../core/settings.ts';
import { WRITE_CONCURRENCY } from '../../../import/write-records.ts';
import { MAX_LINE_BYTES } from '../../../import/lines.ts';
import { MAX_LISTED_FILES_LEFT } from '../../../import/steps/work-folder.ts';
import {
  DEFAULT_PART_BYTES,
  MAX_LISTED_PROBLEMS,
  MAX_LISTED_WARNINGS,
} from '../../../import/parts.ts';
import { DEFAULT_THROTTLE } from '../../../lib/api.ts';
import { ProjectFunction } from '../../../lib/project-function.ts';
import { TOP_READERS } from '../../../lib/audit.ts';
import { REFRESH_TOKEN_VALIDITY, TOKEN_VALIDITY } from '../../../lib/identity.ts';
import {
  AUDIT_RETENTION_DAYS,
  FILES_RETENTION,
  IMPORT_RETENTION,
  IMPORT_WRITE_HORIZON_DAYS,
  INCOMPLETE_UPLOAD_DAYS,
  TOMBSTONE_DAYS,
} from '../../../core/retention.ts';
import { MAX_REFRESH_TOKENS_PER_USER } from '../../../local/cognito/refresh-tokens.ts';
import { LOCAL_AUDIT_RETENTION_DAYS } from '../../../local/tools/audit-log.ts';
import { TABLE_OPERATIONS, THRESHOLDS } from '../../../lib/monitoring.ts';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { IMPORT_CONCURRENCY, TABLE_WARM_WRITES } from '../../../stage/settings.ts';
import { IMPORT_STEPS } from '../../../import/steps/step.ts';
import { WRITE_SAVE_MS, WRITE_STOP_MARGIN_MS } from '../../../import/steps/write-part.ts';
import { DEMO_OBJECT_KEYS } from '../../../local/s3/s3-server.ts';
import { resourcesOf, synthesize, type Synthesized } from '../synth.ts';

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
/** Every Markdown file under a folder, as paths from the repository root. */
const docFiles = (dir: string): string[] =>
  readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? docFiles(`${dir}/${entry.name}`)
      : entry.name.endsWith('.md')
        ? [`${dir}/${entry.name}`]
        : [],
  );

const CHILD_IDS = Array.from({ length: MAX_CHILDREN }, (_, i) => i + 1);
/** The stored size of the fixtures' record with these children, as the import counts it. */
function storedSize(entity: Entity, childIds: number[]): number {
  const record =
    entity === 'transaction'
      ? transaction({ transaction_currencies: childIds.map(currencyLine) })
      : customer({ id: 1, customer_risk_assessments: childIds.map((i) => riskAssessment(1, i)) });
  const parsed = createLineParser(createTimeCodec('UTC'))(line(entity, record));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('the fixture is invalid');
  return itemSize(itemOf(ENTITIES[entity], parsed.record, VERSION_FOR_SIZE));
}
const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;
/** The runbooks the tests below read whole. */
const usersAndAccess = read('docs/operations/users-and-access.md');
const alarms = read('docs/operations/alarms.md');
const firstDeploy = read('docs/operations/first-deploy.md');
/** Every doc: README.md and each Markdown file under docs/. */
const allDocs = ['README.md', ...docFiles('docs')].map(read).join('\n');

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

/** A document with every run of white space (line breaks, table padding) made one space. */
const flat = (path: string) => read(path).replace(/\s+/g, ' ');
/** 1827 → "1,827", as the docs write figures of four digits and more in prose. */
const n = (value: number) => value.toLocaleString('en-US');

const ttl = URL_TTL_SECONDS;
const budgets = DEFAULT_READ_BUDGETS;
const limits = READ_BUDGET_LIMITS;
const access = TOKEN_VALIDITY.toMinutes();
const refresh = REFRESH_TOKEN_VALIDITY.toHours();
const windowMinutes = budgets.windowSeconds / 60;
const throttle = DEFAULT_THROTTLE;
const period = THRESHOLDS.period.toMinutes();
/** MAX_ID is 2^bits − 1. */
const idBits = MAX_ID.toString(2).length;
const mib = (bytes: number) => bytes / 1024 / 1024;

/** [document, statement]: each statement as the document words it, built from the code's figure. */
const STATEMENTS: [string, string][] = [
  // Token lifetimes (lib/identity.ts).
  [
    'docs/operations/users-and-access.md',
    `Tokens last ${access} minutes at most, refresh tokens ${refresh} hours`,
  ],
  ['docs/operations/users-and-access.md', `the refresh token (${refresh} hours)`],
  ['docs/security.md', `Access and ID tokens live ${access} minutes`],
  ['docs/security.md', `refresh tokens ${refresh} hours: even a token nobody revokes`],
  ['docs/security.md', `A copied access token works for up to ${access} minutes`],
  ['docs/security.md', `mints new ones for up to ${refresh} hours`],
  ['docs/architecture.md', `access token (${access} min)`],
  // Read budgets and their window (core/read-budgets.ts).
  [
    'docs/operations/first-deploy.md',
    `| \`readBudgetCustomers\` | \`${budgets.customers}\` | customer reads per user and window before a 429, 1..${limits.budgetMax} |`,
  ],
  [
    'docs/operations/first-deploy.md',
    `| \`readBudgetTransactions\` | \`${budgets.transactions}\` | transaction reads per user and window before a 429, 1..${limits.budgetMax} |`,
  ],
  [
    'docs/operations/first-deploy.md',
    `| \`readBudgetWindowSeconds\` | \`${budgets.windowSeconds}\` | the window in seconds, 1..${limits.windowSecondsMax} `,
  ],
  [
    'docs/operations/first-deploy.md',
    `| \`READ_BUDGET_CUSTOMERS\` | \`${budgets.customers}\` | customer reads per user and window before 429 (SPEC 8), 1 to ${limits.budgetMax} |`,
  ],
  [
    'docs/operations/first-deploy.md',
    `| \`READ_BUDGET_TRANSACTIONS\` | \`${budgets.transactions}\` | transaction reads per user and window, 1 to ${limits.budgetMax} |`,
  ],
  [
    'docs/operations/first-deploy.md',
    `| \`READ_BUDGET_WINDOW_SECONDS\` | \`${budgets.windowSeconds}\` | the budgets' window, 1 to ${limits.windowSecondsMax} s |`,
  ],
  [
    'docs/security.md',
    `Each user may make ${budgets.customers} customer and ${budgets.transactions} transaction reads per ${windowMinutes} minutes`,
  ],
  [
    'docs/security.md',
    `can read ${budgets.customers} customers and ${budgets.transactions} transactions every ${windowMinutes} minutes`,
  ],
  // Presigned URL lifetime (core/settings.ts).
  [
    'docs/operations/first-deploy.md',
    `| \`signatureUrlTtlSeconds\` | \`${ttl.default}\` | lifetime of presigned file URLs, ${ttl.min}..${ttl.max} s`,
  ],
  [
    'docs/operations/first-deploy.md',
    `| \`SIGNATURE_URL_TTL_SECONDS\` | \`${ttl.default}\` | lifetime of presigned file URLs, ${ttl.min} to ${ttl.max} |`,
  ],
  ['docs/operations/first-deploy.md', `a TTL outside ${ttl.min}..${ttl.max}`],
  [
    'docs/security.md',
    `TTL at most ${ttl.max} s.** \`SIGNATURE_URL_TTL_SECONDS\` (default ${ttl.default})`,
  ],
  ['docs/security.md', `\`X-Amz-Expires\` over ${ttl.max}`],
  ['docs/api.md', `\`X-Amz-Expires\` of ${ttl.min} to ${ttl.max}`],
  ['docs/security.md', `a TTL of at most ${ttl.max} s`],
  ['README.md', `paste one into a browser within ${ttl.default / 60} minutes`],
  // Ids (core/ids.ts).
  ['docs/api.md', `are at most 2^${idBits}−1`],
  ['docs/api.md', `or over 2^${idBits}−1)`],
  ['docs/security.md', `at most 2^${idBits}-1)`],
  ['docs/import.md', `JSON integers of at most 2^${idBits}−1`],
  // The import (stage/settings.ts, lib/import-drop.ts, import/, core/records.ts).
  [
    'docs/operations/first-deploy.md',
    `| \`importConcurrency\` | \`${IMPORT_CONCURRENCY.default}\` | parts of an import file checked or written at once, 1..${IMPORT_CONCURRENCY.max} `,
  ],
  ['docs/import.md', `\`IMPORT_PART_BYTES\`, default ${mib(DEFAULT_PART_BYTES)} MiB`],
  [
    'docs/operations/first-deploy.md',
    `| \`tableWarmWritesPerSecond\` | none (a new on-demand table's ${n(TABLE_WARM_WRITES.min)}) | the table's warm write throughput for a backfill, ${TABLE_WARM_WRITES.min}..${TABLE_WARM_WRITES.max};`,
  ],
  [
    'docs/operations/loading-records.md',
    `\`-c tableWarmWritesPerSecond=${TABLE_WARM_WRITES.max}\``,
  ],
  [
    'docs/operations/loading-records.md',
    `${IMPORT_STEPS.WritePart.timeoutSeconds / 60} minutes (Lambda's most)`,
  ],
  [
    'docs/operations/loading-records.md',
    `A WritePart stops ${WRITE_STOP_MARGIN_MS / 1000} s before its limit`,
  ],
  [
    'docs/operations/loading-records.md',
    `at their next look for its cancel marker (every ${WRITE_SAVE_MS / 1000} s)`,
  ],
  ['docs/import.md', `${WRITE_CONCURRENCY} groups at a time per part in a stage`],
  ['docs/import.md', `shares ${WRITE_CONCURRENCY} groups at a time among the parts it writes`],
  ['docs/import.md', `a line at most ${mib(MAX_LINE_BYTES)} MiB`],
  ['docs/import.md', `at most ${n(MAX_CHILDREN)} currency lines or risk assessments`],
  [
    'docs/import.md',
    `With ${n(MAX_CHILDREN)} lines the example transaction takes ${kb(storedSize('transaction', CHILD_IDS))}, a customer ${kb(storedSize('customer', CHILD_IDS))}.`,
  ],
  [
    'docs/import.md',
    `less up to ${kb(Math.max(...Object.values(ENTITIES).map((e) => priorBytes(e, VERSION_FOR_SIZE))))} for the files of records replaced`,
  ],
  ['docs/import.md', `at most ${MAX_ITEM_BYTES / 1024} KB in an item`],
  ['docs/import.md', `lists all of them or the first ${n(MAX_LISTED_PROBLEMS)};`],
  ['docs/import.md', `\`warnings\` lists every one up to ${n(MAX_LISTED_WARNINGS)}`],
  ['docs/import.md', `\`filesLeft\` the first ${n(MAX_LISTED_FILES_LEFT)} however many`],
  ['docs/import.md', `and keeps the first ${n(MAX_LISTED_FILES_LEFT)} files left:`],
  [
    'docs/security.md',
    `under \`work/\` **${IMPORT_RETENTION.filesDays} days** (an earlier version of a key ${IMPORT_RETENTION.noncurrentDays} days)`,
  ],
  [
    'docs/security.md',
    `are kept ${n(IMPORT_RETENTION.reportsDays)} days, as the audit trail they belong to`,
  ],
  // The table of stores: the files bucket's and the logs' bounds, the local Cognito's.
  [
    'docs/security.md',
    `a replaced or deleted file's earlier version: **${FILES_RETENTION.noncurrentDays} days**, then its delete marker; an upload never completed: **${INCOMPLETE_UPLOAD_DAYS} day**`,
  ],
  [
    'docs/security.md',
    `S3 access logs of the stage's buckets | **${n(AUDIT_RETENTION_DAYS)} days**, as the audit trail`,
  ],
  [
    'docs/security.md',
    `CloudFront access logs | **${n(AUDIT_RETENTION_DAYS)} days**, as the audit trail`,
  ],
  [
    'docs/security.md',
    `uploads and work files **${IMPORT_RETENTION.filesDays} days** (an earlier version ${IMPORT_RETENTION.noncurrentDays} days), reports **${n(IMPORT_RETENTION.reportsDays)} days**`,
  ],
  ['docs/security.md', `the newest ${MAX_REFRESH_TOKENS_PER_USER} refresh tokens per user`],
  // How late an import may write, and how long a deletion is remembered (core/retention.ts).
  ['docs/security.md', `removed by TTL **${TOMBSTONE_DAYS} days** after its file was put`],
  [
    'docs/architecture.md',
    `_How late an import may write_: ${IMPORT_WRITE_HORIZON_DAYS} days after its upload`,
  ],
  ['docs/architecture.md', `A tombstone expires ${TOMBSTONE_DAYS} days after its upload`],
  [
    'docs/import.md',
    `A file put more than ${IMPORT_WRITE_HORIZON_DAYS} days before its import runs is refused whole`,
  ],
  [
    'docs/decisions/0001-record-is-one-item.md',
    `kept until no earlier import may write (${IMPORT_WRITE_HORIZON_DAYS} days`,
  ],
  [
    'docs/decisions/0003-retry-an-import-by-putting-the-file-again.md',
    `later than ${IMPORT_WRITE_HORIZON_DAYS} days after`,
  ],
  ['docs/security.md', `${n(LOCAL_AUDIT_RETENTION_DAYS)} days: older day files go`],
  [
    'docs/import.md',
    `the files bucket then drops the deleted file for good after ${FILES_RETENTION.noncurrentDays} days`,
  ],
  // Stage throttle (lib/api.ts) and the functions (lib/project-function.ts).
  [
    'docs/operations/alarms.md',
    `the stage's limit (${throttle.rateLimit} requests/s, burst ${throttle.burstLimit})`,
  ],
  ['docs/operations/alarms.md', `the stage allows ${throttle.rateLimit}/s`],
  [
    'docs/security.md',
    `the stage throttle (${throttle.rateLimit} requests/s, burst ${throttle.burstLimit})`,
  ],
  [
    'docs/decisions/0024-function-memory-timeout-and-throttle.md',
    `Stage throttling (${throttle.rateLimit} requests/s, burst ${throttle.burstLimit}`,
  ],
  [
    'docs/api.md',
    `throttle (${throttle.rateLimit} requests a second, bursts of ${throttle.burstLimit}, per stage)`,
  ],
  [
    'docs/api.md',
    `API Gateway's throttle (${throttle.rateLimit} a second, bursts of ${throttle.burstLimit})`,
  ],
  [
    'docs/operations/alarms.md',
    `the third of a core a ${ProjectFunction.MEMORY_MB} MB Lambda gets`,
  ],
  // Alarm thresholds (lib/monitoring.ts THRESHOLDS) and the top readers (lib/audit.ts).
  ['docs/operations/alarms.md', `Periods are ${period} minutes`],
  [
    'docs/operations/alarms.md',
    `more than ${THRESHOLDS.route5xxAbove} answers of 5xx in ${period} min`,
  ],
  [
    'docs/operations/alarms.md',
    `p99 over ${THRESHOLDS.routeP99.toSeconds()} s for ${THRESHOLDS.routeP99Periods} periods in a row (${THRESHOLDS.routeP99Periods * period} min)`,
  ],
  [
    'docs/operations/alarms.md',
    `slowest invocation over ${THRESHOLDS.durationNearTimeout.toSeconds()} s (${(100 * THRESHOLDS.durationNearTimeout.toMilliseconds()) / ProjectFunction.TIMEOUT.toMilliseconds()} % of the ${ProjectFunction.TIMEOUT.toSeconds()} s timeout)`,
  ],
  [
    'docs/operations/alarms.md',
    `${THRESHOLDS.authRefusalsAtLeast} or more 401/403 answers in ${period} min`,
  ],
  ['docs/operations/alarms.md', `the widget shows the ${TOP_READERS} largest`],
];

test.each(STATEMENTS)('%s states the figure the code has: %s', (path, statement) => {
  expect({ path, found: flat(path).includes(statement) }).toEqual({ path, found: true });
});

test('the alarms with no tolerance say "any"', () => {
  // Thresholds of 0: any one event fires; the table says "any" for them.
  expect(THRESHOLDS.functionErrorsAbove).toBe(0);
  expect(THRESHOLDS.functionThrottlesAbove).toBe(0);
  expect(THRESHOLDS.dynamoReadThrottlesAbove).toBe(0);
  expect(flat('docs/operations/alarms.md')).toContain(
    '| `Table-Read-Throttled-Events` | any throttled read |',
  );
});

test('log retention: every log group of the stack keeps what the docs say', () => {
  const days = new Set(
    resourcesOf(s.json, 'AWS::Logs::LogGroup').map(
      ([, r]) => r.Properties!.RetentionInDays as number,
    ),
  );
  expect(days.size).toBe(1);
  const [retention] = [...days] as [number];
  expect(retention).toBe(IMPORT_RETENTION.reportsDays);
  const years = Math.round(retention / 365.25);
  for (const [path, statement] of [
    [
      'docs/operations/users-and-access.md',
      `The function log groups and the access log keep ${n(retention)} days`,
    ],
    [
      'docs/operations/loading-records.md',
      `in the import functions' log groups, kept ${n(retention)} days`,
    ],
    ['docs/security.md', `Both log groups keep ${n(retention)} days (${years} years)`],
    ['docs/security.md', `Kept ${n(retention)} days (SPEC 8)`],
    [
      'docs/decisions/0024-function-memory-timeout-and-throttle.md',
      `Logs are kept ${n(retention)} days (${years} years`,
    ],
    ['docs/architecture.md', `keep them ${n(retention)} days`],
  ] as const)
    expect({ path, statement, found: flat(path).includes(statement) }).toMatchObject({
      found: true,
    });
});

test('the access token lifetime', () => {
  expect(usersAndAccess).toContain(`valid for ${TOKEN_VALIDITY.toMinutes()} minutes`);
  expect(allDocs).not.toMatch(/valid for one hour/);
});

test('the operations the DynamoDB system-error alarm sums', () => {
  const names = TABLE_OPERATIONS.join(', ').replace(/, (\w+)$/, ' or $1');
  expect(alarms).toContain(`any internal error of ${names}`);
  expect(alarms).toContain(TABLE_OPERATIONS.map((op) => `FILL(systemError${op},0)`).join('+'));
});

/** The deploy guide, from its heading to the next section of the same level. */
function deploySection(): string {
  const start = firstDeploy.indexOf('## Deploying to AWS');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = firstDeploy.indexOf('\n## ', start + 1);
  return firstDeploy.slice(start, end);
}

test('the deploy guide uploads every demo file the demo data points to, as the local rig does', () => {
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

test('the cost table counts the alarms, alarm metrics and keys the stack synthesizes', () => {
  const alarms = resourcesOf(s.json, 'AWS::CloudWatch::Alarm');
  // A math alarm is billed per metric it reads; a plain alarm reads one.
  const metrics = alarms.reduce(
    (sum, [, alarm]) =>
      sum +
      ((alarm.Properties!.Metrics as { MetricStat?: unknown }[] | undefined)?.filter(
        (m) => m.MetricStat,
      ).length ?? 1),
    0,
  );
  const section = flat('docs/operations/costs.md');
  expect(section).toContain(
    `| CloudWatch alarms: ${alarms.length} alarms, ${metrics} alarm metrics (math alarms count each metric) | P10 | $${(metrics * 0.1).toFixed(2)} | $${(metrics * 0.1).toFixed(2)} |`,
  );
  const keys = resourcesOf(s.json, 'AWS::KMS::Key').length;
  expect(section).toContain(
    `| KMS keys: the files bucket's, the import bucket's and the alarm topic's | P15 | $${keys}.00 | $${keys}.00 |`,
  );
});
