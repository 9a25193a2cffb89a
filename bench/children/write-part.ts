/**
 * One step of the import workflow (import/steps/) in a process of its own, started by section
 * 11 under `taskset -c 0`: as a step's Lambda function runs it on one vCPU, with the deps the
 * local drop makes (localStepDeps). Only the step's call is timed: the process's start and its
 * module loading are a cold start's, which Lambda pays once per function, not once per part.
 * Plan and Verify are timed on their second call: in a stage one function of each goes through
 * the whole file, so its first request's costs are paid once, not once per part as here.
 * Writes its figures to the spec's `resultFile`.
 */
import { writeFileSync } from 'node:fs';
import { checkPartStep } from '../../import/steps/check-part.ts';
import { plan } from '../../import/steps/plan.ts';
import {
  IMPORT_STEPS,
  type ExecutionInput,
  type PartInput,
  type StepDeps,
} from '../../import/steps/step.ts';
import { verify } from '../../import/steps/verify.ts';
import { writePart } from '../../import/steps/write-part.ts';
import { localStepDeps, type LocalDropTarget } from '../../local/step-functions/import-runner.ts';

export type WorkerStep = 'plan' | 'check' | 'verify' | 'write';

export interface WorkerSpec {
  step: WorkerStep;
  target: LocalDropTarget;
  /** Plan's input: the file as the drop's event names it. */
  event: ExecutionInput;
  /** The other steps': the part (verify merges this one part only). */
  part?: PartInput;
  resultFile: string;
}

export interface WorkerResult {
  seconds: number;
  cpuMs: number;
  maxRssMiB: number;
  /** What the step returned. */
  output: unknown;
}

/** The one execution each run's steps belong to (one upload key a run). */
const BENCH_EXECUTION = 'arn:aws:states:us-east-1:000000000000:execution:import:bench';

const timeLimits = {
  plan: 'Plan',
  check: 'CheckPart',
  verify: 'Verify',
  write: 'WritePart',
} as const;

function runStep(spec: WorkerSpec, deps: StepDeps): Promise<unknown> {
  const part = spec.part;
  // The workflow's first state adds the execution; Plan claims the upload for it.
  if (spec.step === 'plan')
    return plan(deps, { ...spec.event, execution: { id: BENCH_EXECUTION } });
  if (!part) throw new Error(`${spec.step} needs a part`);
  if (spec.step === 'check') return checkPartStep(deps, part);
  if (spec.step === 'verify')
    return verify(deps, { importId: part.importId, bucket: part.bucket, parts: 1 });
  // Lambda's context: the time left of the step's limit, as WritePart reads it to stop in time.
  const deadline = Date.now() + IMPORT_STEPS[timeLimits[spec.step]].timeoutSeconds * 1000;
  return writePart(deps, part, { getRemainingTimeInMillis: () => deadline - Date.now() });
}

const spec = JSON.parse(process.argv[2]!) as WorkerSpec;
const deps = localStepDeps(spec.target);
try {
  // Both are safe to repeat: the same plan and verdict again.
  if (spec.step === 'plan' || spec.step === 'verify') await runStep(spec, deps);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const output = await runStep(spec, deps);
  const used = process.cpuUsage(cpu);
  const result: WorkerResult = {
    seconds: (performance.now() - started) / 1000,
    cpuMs: (used.user + used.system) / 1000,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    output,
  };
  writeFileSync(spec.resultFile, JSON.stringify(result));
} finally {
  deps.s3.destroy();
  deps.client.destroy();
}
