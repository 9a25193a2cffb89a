/**
 * Report over an import whose parts left far more files than a report lists, run alone in a
 * process (test/unit/import-report-memory.test.ts starts it under a small heap): the bucket is a
 * stand-in that makes each part's `written/` object when it is read, so that the process holds
 * no more of the parts than Report itself keeps. Prints the report and the largest heap seen
 * while Report read the parts: live objects only (a full collection before every 25th read; run
 * with --expose-gc), so garbage not yet collected does not count.
 *
 * Arguments: parts, entries per part. Entry j of part i is line i * entries + j + 1; every tenth
 * is a record written again (no key), the others a file left.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { report } from '../../import/steps/report.ts';
import { emptySummary } from '../../import/summary.ts';
import type { StepDeps } from '../../import/steps/step.ts';
import type { FileLeft, WrittenPart } from '../../import/steps/work-folder.ts';

const [parts, entries] = process.argv.slice(2).map(Number) as [number, number];
const importId = 'memory';
const bucket = 'import-bucket';
const prefix = `work/${importId}/written/`;
let heapPeak = 0;
let reads = 0;
const gc = (globalThis as { gc?: () => void }).gc;
/** The heap's live objects now, after a full collection. */
function liveHeap(): number {
  gc?.();
  return process.memoryUsage().heapUsed;
}
let reportBody = '';

/** Part i's written/ object: its counts and its files left, newest line first (Report sorts). */
function writtenPart(index: number): string {
  const filesLeft: FileLeft[] = [];
  for (let j = entries - 1; j >= 0; j--) {
    const line = index * entries + j + 1;
    filesLeft.push(
      line % 10 === 0
        ? [line, '', `line ${line}: customer.id: customer ${line} was found already written`]
        : [
            line,
            `id-photos/C-${line}.jpg`,
            `line ${line}: id_photo: "id-photos/C-${line}.jpg" is no longer named by customer ${line} (replaced): remove it from the files bucket unless another record names it`,
          ],
    );
  }
  const part: WrittenPart = {
    ...emptySummary(),
    index,
    records: entries,
    customers: entries,
    filesLeft,
    filesLeftCount: filesLeft.filter(([, key]) => key !== '').length,
  };
  return JSON.stringify(part);
}

const s3 = {
  async send(command: { constructor: { name: string }; input: Record<string, string> }) {
    const { Key, Prefix } = command.input;
    switch (command.constructor.name) {
      case 'ListObjectsV2Command':
        return {
          Contents:
            Prefix === prefix
              ? Array.from({ length: parts }, (_, i) => ({
                  Key: `${prefix}${i}.json`,
                  LastModified: new Date(0),
                }))
              : [],
        };
      case 'GetObjectCommand': {
        if (++reads % 25 === 0) heapPeak = Math.max(heapPeak, liveHeap());
        if (!Key?.startsWith(prefix))
          throw Object.assign(new Error('no such key'), { name: 'NoSuchKey' });
        const text = writtenPart(Number(Key!.slice(prefix.length, -'.json'.length)));
        return { Body: { transformToString: async () => text } };
      }
      case 'PutObjectCommand':
        if (Key === `reports/${importId}.json`) reportBody = String(command.input.Body);
        return {};
      default:
        throw new Error(`unexpected ${command.constructor.name}`);
    }
  },
} as unknown as S3Client;

const heapBefore = liveHeap();
await report({ s3, audit: () => {} } as unknown as StepDeps, {
  importId,
  bucket,
  key: 'incoming/memory.jsonl',
  versionId: 'null',
  outcome: 'imported',
  input: { plan: { importId, parts, key: 'incoming/memory.jsonl', version: 'v' } },
});
heapPeak = Math.max(heapPeak, liveHeap());
process.stdout.write(JSON.stringify({ heapBefore, heapPeak, report: JSON.parse(reportBody) }));
