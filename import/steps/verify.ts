/** Verify: every part's findings merged, the same record in two parts included. */
import { partVerifier, type CheckedPart } from '../parts.ts';
import type { StepDeps } from './step.ts';
import { checkedKey, problemsKey, readJson, writeJson } from './work-folder.ts';

/** Checked parts Verify reads ahead of the one it merges. */
const VERIFY_READ_AHEAD = 4;

export interface VerifyInput {
  importId: string;
  bucket: string;
  parts: number;
}

export interface VerifyResult {
  valid: boolean;
  problems: number;
  records: number;
}

export async function verify(deps: StepDeps, input: VerifyInput): Promise<VerifyResult> {
  // In file order, a few read ahead: one part's records in memory at a time, beside the ids.
  const read = (index: number) => {
    const part = readJson<CheckedPart>(deps.s3, input.bucket, checkedKey(input.importId, index));
    part.catch(() => {}); // a read ahead that fails is thrown when its turn comes
    return part;
  };
  const ahead: Promise<CheckedPart | undefined>[] = [];
  const verifier = partVerifier();
  for (let index = 0; index < input.parts; index += 1) {
    for (let i = ahead.length; i < VERIFY_READ_AHEAD && index + i < input.parts; i += 1)
      ahead.push(read(index + i));
    const part = await ahead.shift()!;
    if (!part) throw new Error(`part ${index} of import ${input.importId} was not checked`);
    verifier.add(part);
  }
  const verdict = verifier.verdict();
  await writeJson(deps.s3, input.bucket, problemsKey(input.importId), verdict);
  return {
    valid: verdict.problemCount === 0,
    problems: verdict.problemCount,
    records: verdict.records,
  };
}
