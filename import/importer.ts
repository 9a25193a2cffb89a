/**
 * The import command's work (SPEC 6): validate the whole file, then write it. Both passes stream
 * the file; only ids are kept between them, to find the same record twice.
 */
import {
  BatchWriteCommand,
  QueryCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { PARTITION_KEY, SORT_KEY, partitionKey, type Entity } from '../functions/shared/keys';
import { isUnavailable, itemsOf, type Item } from '../functions/shared/table';
import { createTimeCodec } from '../functions/shared/times';
import { readLines } from './lines';
import { createLineParser } from './records';

export interface ImportOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  displayTimeZone: string;
  /** Called with each problem as `line N: <field path>: <reason>`. */
  onProblem?: (problem: string) => void;
  /** Called as records are written. */
  onProgress?: (written: number, total: number) => void;
  /** Records whose old keys are read and whose items are written together. */
  recordsPerGroup?: number;
}

export interface ImportSummary {
  records: number;
  transactions: number;
  customers: number;
}

export class InvalidFileError extends Error {
  override readonly name = 'InvalidFileError';
  constructor(readonly problems: number) {
    super(`The file has ${problems} problem${problems === 1 ? '' : 's'}; nothing was written`);
  }
}

interface Parsed {
  entity: Entity;
  record: Item;
}

async function* parsedRecords(
  path: string,
  parse: ReturnType<typeof createLineParser>,
  onProblem: (lineNo: number, path: string, reason: string) => void,
): AsyncGenerator<Parsed & { lineNo: number; id: bigint }> {
  for await (const line of readLines(path)) {
    if ('error' in line) {
      onProblem(line.lineNo, '$', line.error);
      continue;
    }
    if (line.text.trim() === '') continue;
    const parsed = parse(line.text);
    if (parsed.ok) yield { ...parsed, lineNo: line.lineNo };
    else for (const p of parsed.problems) onProblem(line.lineNo, p.path, p.reason);
  }
}

/** Pass one: every problem of the file, and how many records it holds. */
async function validateFile(
  path: string,
  parse: ReturnType<typeof createLineParser>,
  onProblem: (problem: string) => void,
): Promise<{ problems: number; records: number }> {
  let problems = 0;
  let records = 0;
  const report = (lineNo: number, field: string, reason: string): void => {
    problems += 1;
    onProblem(`line ${lineNo}: ${field}: ${reason}`);
  };
  const firstLine = new Map<string, number>();
  for await (const { entity, id, lineNo } of parsedRecords(path, parse, report)) {
    records += 1;
    const key = partitionKey(entity, id);
    const first = firstLine.get(key);
    if (first === undefined) firstLine.set(key, lineNo);
    else report(lineNo, `${entity}.id`, `${entity} ${id} is already on line ${first}`);
  }
  return { problems, records };
}

const MAX_ATTEMPTS = 10;

async function backoff(attempt: number): Promise<void> {
  const ms = Math.min(5000, 50 * 2 ** attempt) * (0.5 + Math.random() / 2);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Retries what DynamoDB throttles or leaves unprocessed, with backoff and jitter. */
async function withRetries<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      if (!isUnavailable(error) || attempt >= MAX_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}

async function batchWrite(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: Item[],
): Promise<void> {
  let pending = requests;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > MAX_ATTEMPTS)
      throw new Error(
        `DynamoDB left ${pending.length} writes unprocessed after ${MAX_ATTEMPTS} attempts`,
      );
    if (attempt > 1) await backoff(attempt);
    const result = await withRetries(() =>
      client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } })),
    );
    pending = (result.UnprocessedItems?.[tableName] ?? []) as Item[];
  }
}

/** Sort keys stored now under a record's partition key, so that stale children can be deleted. */
async function storedSortKeys(
  client: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
): Promise<string[]> {
  const keys: string[] = [];
  let startKey: Item | undefined;
  do {
    const page = await withRetries(() =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk',
          ProjectionExpression: '#sk',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
          ExpressionAttributeValues: { ':pk': pk },
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    for (const item of page.Items ?? []) keys.push(item[SORT_KEY] as string);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return keys;
}

/** Writes a group of records whole: their items, and deletes of any of their old items not rewritten. */
async function writeGroup(
  client: DynamoDBDocumentClient,
  tableName: string,
  group: Parsed[],
): Promise<void> {
  const requests: Item[] = [];
  await Promise.all(
    group.map(async ({ entity, record }) => {
      const items = itemsOf(entity, record);
      const pk = items[0]![PARTITION_KEY] as string;
      const fresh = new Set(items.map((item) => item[SORT_KEY]));
      for (const sk of await storedSortKeys(client, tableName, pk)) {
        if (!fresh.has(sk))
          requests.push({ DeleteRequest: { Key: { [PARTITION_KEY]: pk, [SORT_KEY]: sk } } });
      }
      for (const item of items) requests.push({ PutRequest: { Item: item } });
    }),
  );
  const batches: Item[][] = [];
  for (let i = 0; i < requests.length; i += 25) batches.push(requests.slice(i, i + 25));
  await Promise.all(batches.map((batch) => batchWrite(client, tableName, batch)));
}

export async function importFile(path: string, options: ImportOptions): Promise<ImportSummary> {
  const {
    client,
    tableName,
    onProblem = () => {},
    onProgress = () => {},
    recordsPerGroup = 50,
  } = options;
  const parse = createLineParser(createTimeCodec(options.displayTimeZone));

  const { problems, records } = await validateFile(path, parse, onProblem);
  if (problems > 0) throw new InvalidFileError(problems);

  const summary: ImportSummary = { records: 0, transactions: 0, customers: 0 };
  const unexpected = (lineNo: number): never => {
    throw new Error(`line ${lineNo} changed while importing; nothing after it was written`);
  };
  let group: Parsed[] = [];
  const flush = async (): Promise<void> => {
    await writeGroup(client, tableName, group);
    for (const { entity } of group)
      summary[entity === 'transaction' ? 'transactions' : 'customers'] += 1;
    summary.records += group.length;
    group = [];
    onProgress(summary.records, records);
  };
  for await (const parsed of parsedRecords(path, parse, unexpected)) {
    group.push(parsed);
    if (group.length >= recordsPerGroup) await flush();
  }
  if (group.length > 0) await flush();
  return summary;
}
