/**
 * `npm run import -- <file> --stage <name>` (SPEC 9): the stage's import bucket from its stack's
 * output `ImportBucketName`, the file put under `incoming/` with the AWS credentials of the
 * environment, then the import followed until its report is there. What this needs of the
 * operator's policy: s3:PutObject on `incoming/*`, s3:GetObject on `reports/*`, and, for the
 * progress line only, s3:GetObject on `work/*` and s3:ListBucket on `work/` (without them the line
 * says only that the import runs).
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { makeStage } from '../lib/stage';
import { incomingKey, putIntoDrop, type Progress } from './drop';
import type { Part } from './parts';
import { importIdOf, manifestKey, readJson, reportKey, type ImportReport } from './steps';

export const IMPORT_BUCKET_OUTPUT = 'ImportBucketName';
/** How often the report is looked for. */
export const POLL_MS = 2000;

/** The stage's import bucket, from its CloudFormation stack's outputs. */
export async function importBucketOf(cfn: CloudFormationClient, stage: string): Promise<string> {
  const { stackName } = makeStage({ name: stage });
  const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
  const bucket = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === IMPORT_BUCKET_OUTPUT);
  if (!bucket?.OutputValue)
    throw new Error(`stack ${stackName} has no output ${IMPORT_BUCKET_OUTPUT}: deploy it first`);
  return bucket.OutputValue;
}

/** As readJson, and nothing where the operator's policy does not let them read (progress). */
async function getJson<T>(s3: S3Client, bucket: string, key: string): Promise<T | undefined> {
  try {
    return await readJson<T>(s3, bucket, key);
  } catch (error) {
    if ((error as { name?: string }).name === 'AccessDenied') return undefined;
    throw error;
  }
}

async function countUnder(s3: S3Client, bucket: string, prefix: string): Promise<number> {
  let count = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    count += page.KeyCount ?? 0;
    token = page.NextContinuationToken;
  } while (token);
  return count;
}

/** How far the import is, from what its steps left under `work/<import id>/`. */
async function progressOf(s3: S3Client, bucket: string, importId: string): Promise<Progress> {
  const parts = (await getJson<Part[]>(s3, bucket, manifestKey(importId)))?.length;
  if (parts === undefined) return { phase: 'planning', parts: 0, partsDone: 0, records: 0 };
  try {
    const written = await countUnder(s3, bucket, `work/${importId}/written/`);
    if (written > 0) return { phase: 'writing', parts, partsDone: written, records: 0 };
    const checked = await countUnder(s3, bucket, `work/${importId}/checked/`);
    return { phase: 'checking', parts, partsDone: checked, records: 0 };
  } catch {
    return { phase: 'checking', parts, partsDone: 0, records: 0 };
  }
}

/** The AWS clients of the environment's credentials and region (tests pass their own). */
export interface StageClients {
  cfn: CloudFormationClient;
  s3: S3Client;
}

export async function importIntoStage(
  stage: string,
  file: string,
  onProgress: (progress: Progress) => void,
  clients: StageClients = { cfn: new CloudFormationClient({}), s3: new S3Client({}) },
): Promise<ImportReport> {
  const { cfn, s3 } = clients;
  try {
    const bucket = await importBucketOf(cfn, stage);
    const input = await putIntoDrop(s3, bucket, file, incomingKey(file));
    const importId = importIdOf(input.key, input.versionId);
    for (;;) {
      const report = await getJson<ImportReport>(s3, bucket, reportKey(importId));
      if (report) return report;
      onProgress(await progressOf(s3, bucket, importId));
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    cfn.destroy();
    s3.destroy();
  }
}
