/**
 * The local import drop (SPEC 9). A file put under `incoming/` of the local rig's import bucket
 * runs the stage's own workflow definition (stage/import-workflow.ts) in this process. A real ASL
 * interpreter (aws-local-stepfunctions) runs it, with each Task state mapped to the handler code
 * the stage's function runs (functions/import-*.ts). The local drop so tries the stage's workflow
 * itself, not a copy.
 *
 * The definition is changed in one way (localDefinition), because the interpreter runs inline
 * Maps only. Each Map that reads its items from S3 (Distributed mode, an ItemReader of Plan's
 * `manifestKey`) becomes an inline Map over the items the runner reads from the manifest itself.
 * Plan's result carries them as `items`, beside `manifestKey`. ResultWriter, ItemBatcher and the
 * failure tolerance are dropped. The alarm topic's Task (`sns:publish`) does nothing locally,
 * since the report and the exit status say the same.
 *
 * Each Task keeps its stage's TimeoutSeconds, where the interpreter's own default would cut it at
 * 60 s. Its handler is told its remaining time, as Lambda tells it, and is aborted at that same
 * limit, so that a step the interpreter has cut writes nothing more. As in a stage, once a part
 * has failed no other part starts.
 */
import { randomUUID } from 'node:crypto';
import { createHandler as checkPartHandler } from '../../functions/import-check-part.ts';
import { createHandler as planHandler } from '../../functions/import-plan.ts';
import { createHandler as reportHandler } from '../../functions/import-report.ts';
import { createHandler as verifyHandler } from '../../functions/import-verify.ts';
import { createHandler as writePartHandler } from '../../functions/import-write-part.ts';
import type { ImportAuditSink } from '../../import/audit.ts';
import { createDocumentClient } from '../../functions/shared/document-client.ts';
import { WRITE_CONCURRENCY, writeSlots } from '../../import/write-records.ts';
import type { Progress } from '../../import/progress.ts';
import type { Part } from '../../import/parts.ts';
import {
  importIdOf,
  readJson,
  reportKey,
  type PartCounts,
} from '../../import/steps/work-folder.ts';
import {
  IMPORT_STEPS,
  type ExecutionInput,
  type ImportReport,
  ImportStopped,
  type StepContext,
  type StepDeps,
} from '../../import/steps/step.ts';
import { type PlanResult } from '../../import/steps/plan.ts';
import { importWorkflowDefinition } from '../../stage/import-workflow.ts';
import { loadStepFunctions } from './step-functions-library.ts';
import { appendAuditEvents } from '../tools/audit-log.ts';
import { EMULATOR_REQUEST_TIMEOUT_MS } from '../net.ts';
import { s3Client } from '../s3/s3-client.ts';
import { zoneOffsets, type ZoneOffsets } from '../../core/times.ts';

/** Local stand-ins for the stage's ARNs: the runner maps each Task to a handler by them. */
const REGION = 'us-east-1';
const ACCOUNT = '000000000000';
const functionArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;
const FUNCTIONS = {
  plan: functionArn(IMPORT_STEPS.Plan.entry),
  checkPart: functionArn(IMPORT_STEPS.CheckPart.entry),
  verify: functionArn(IMPORT_STEPS.Verify.entry),
  writePart: functionArn(IMPORT_STEPS.WritePart.entry),
  report: functionArn(IMPORT_STEPS.Report.entry),
} as const;
const ALARM_TOPIC_ARN = `arn:aws:sns:${REGION}:${ACCOUNT}:import-alarms`;
const PARTITION = 'aws';

type Json = unknown;
type State = Record<string, Json> & { Type?: string };
type Definition = { States: Record<string, State>; StartAt: string } & Record<string, Json>;

/** Each Map that reads items from S3, made inline over `<Plan's result>.items`. */
export function localDefinition(definition: Record<string, unknown>): Definition {
  const copy = structuredClone(definition) as Definition;
  const visit = (states: Record<string, State>) => {
    for (const state of Object.values(states)) {
      if (state.Type !== 'Map') continue;
      const processor = (state.ItemProcessor ?? state.Iterator) as Definition | undefined;
      if (state.ItemReader) {
        // The reader's key is Plan's `manifestKey`; the items go beside it, in Plan's result.
        const keyPath = (state.ItemReader as { Parameters?: Record<string, unknown> }).Parameters?.[
          'Key.$'
        ];
        if (typeof keyPath !== 'string' || !keyPath.endsWith('.manifestKey'))
          throw new Error(`the Map's ItemReader does not read Plan's manifestKey: ${keyPath}`);
        for (const name of ['ItemReader', 'ResultWriter', 'ItemBatcher', 'Label'])
          delete state[name];
        for (const name of ['ToleratedFailurePercentage', 'ToleratedFailureCount'])
          delete state[name];
        state.ItemsPath = keyPath.replace(/manifestKey$/, 'items');
        if (processor) processor.ProcessorConfig = { Mode: 'INLINE' };
      }
      if (processor) visit(processor.States);
    }
  };
  visit(copy.States);
  return copy;
}

/** A service integration's resource, in any partition: `arn:<partition>:states:::<service>`. */
const isIntegration = (resource: string | undefined, service: string) =>
  resource !== undefined && new RegExp(`^arn:[a-z-]+:states:::${service}(\\.|$)`).test(resource);

/** The function a Task state calls: its Resource, or lambda:invoke's FunctionName. */
function taskFunction(state: State): string | undefined {
  const resource = state.Resource as string | undefined;
  if (isIntegration(resource, 'lambda:invoke'))
    return (state.Parameters as { FunctionName?: string } | undefined)?.FunctionName;
  return resource;
}

/** A step's handler as Lambda would run it: its input, its context, and (locally) its cut. */
export type Handler = (
  input: never,
  context?: StepContext,
  signal?: AbortSignal,
) => Promise<unknown>;

/**
 * A handler run under its Task's TimeoutSeconds: told its remaining time as Lambda tells it, and
 * aborted at the same instant the interpreter declares the Task timed out.
 */
function underTimeLimit(handler: Handler, name: string, seconds: number) {
  return async (input: Json) => {
    const deadline = Date.now() + seconds * 1000;
    const cut = new AbortController();
    const timer = setTimeout(
      () => cut.abort(new ImportStopped(`${name} was cut at its time limit of ${seconds} s`)),
      seconds * 1000,
    );
    try {
      return await handler(
        input as never,
        { getRemainingTimeInMillis: () => deadline - Date.now() },
        cut.signal,
      );
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Each Task state, by name (nested ones too), mapped to its local handler. */
export function localHandlers(definition: Definition, handlers: Record<string, Handler>) {
  const byName: Record<string, (input: Json) => Promise<Json>> = {};
  const visit = (states: Record<string, State>) => {
    for (const [name, state] of Object.entries(states)) {
      if (state.Type === 'Map')
        visit(((state.ItemProcessor ?? state.Iterator) as Definition).States);
      if (state.Type !== 'Task') continue;
      const fn = taskFunction(state);
      if (fn === undefined) continue;
      const viaInvoke = isIntegration(state.Resource as string, 'lambda:invoke');
      if (isIntegration(fn, 'sns:publish')) {
        byName[name] = async () => ({ MessageId: 'local' });
        continue;
      }
      const handler = handlers[fn];
      if (!handler) throw new Error(`no local handler for ${name} (${fn})`);
      const seconds = state.TimeoutSeconds;
      if (typeof seconds !== 'number')
        throw new Error(`${name} sets no TimeoutSeconds: the interpreter would cut it at 60 s`);
      const run = underTimeLimit(handler, name, seconds);
      byName[name] = async (input) => {
        const payload = viaInvoke ? (input as { Payload: Json }).Payload : input;
        const result = await run(payload);
        return viaInvoke ? { Payload: result, StatusCode: 200 } : result;
      };
    }
  };
  visit(definition.States);
  return byName;
}

export interface LocalDropTarget {
  s3Endpoint: string;
  importBucketName: string;
  dynamoDbEndpoint: string;
  tableName: string;
  /** The local rig's zone, from its state: never the operator's environment. */
  displayTimeZone: string;
  /** Its table as the rig worked it out (its state); without one the drop works it out. */
  displayTimeZoneOffsets?: ZoneOffsets | undefined;
  /** The local files bucket, whose keys records may name (warned of when missing). */
  filesBucketName?: string;
  /** Where audit events go (the local rig's audit trail: local/tools/audit-log.ts). */
  auditFile: string;
}

/**
 * Parts checked or written at once locally, unless IMPORT_CONCURRENCY says otherwise: one. Every
 * part is this one process against one DynamoDB Local, so more at once write no faster (bench
 * section 9: 1, 2 and 4 at the same records/s) and only make each part take longer, and a part
 * must end within its step's time limit (IMPORT_STEPS) as in a stage: ten 8 MiB parts
 * sharing a busy local table took longer than that.
 */
export const LOCAL_CONCURRENCY = 1;

export interface LocalDropOptions {
  /** Parts in flight at once (the stage's importConcurrency; default LOCAL_CONCURRENCY). */
  concurrency?: number;
  /** Bytes per part (tests force small parts). */
  partBytes?: number;
  onProgress?: (progress: Progress) => void;
  /** The object key under `incoming/`; default a unique one from the file's name. */
  key?: string;
  /** Tests: a step's handler wrapped (e.g. a writer killed half-way). */
  wrap?: Partial<Record<keyof typeof FUNCTIONS, (h: Handler) => Handler>>;
  /**
   * The execution, as Step Functions names it in the context object: by default a new one, as
   * the rule starts (unnamed); the same name again with a higher `redriveCount` stands for a
   * redrive of it (which, unlike AWS's, runs every state again from Plan).
   */
  execution?: { name: string; redriveCount?: number };
}

/** A local execution's ARN, by its name. */
export const localExecutionArn = (name: string) =>
  `arn:aws:states:${REGION}:${ACCOUNT}:execution:import:${name}`;

/** Thrown by runWorkflow when another execution of the same upload holds its claim. */
export class DuplicateExecution extends Error {
  override readonly name = 'DuplicateExecution';
}

/** The steps' dependencies pointed at the local rig (its clients made once per drop). */
export function localStepDeps(target: LocalDropTarget, partBytes?: number): StepDeps {
  // Appended as the gateway's are: local/tools/audit-log.ts (day files, each opened per write).
  const audit: ImportAuditSink = (...events) => appendAuditEvents(target.auditFile, events);
  return {
    s3: s3Client(target.s3Endpoint),
    client: createDocumentClient({
      region: REGION,
      endpoint: target.dynamoDbEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 5,
      requestTimeoutMs: EMULATOR_REQUEST_TIMEOUT_MS,
    }),
    tableName: target.tableName,
    displayTimeZone: target.displayTimeZone,
    displayTimeZoneOffsets: target.displayTimeZoneOffsets ?? zoneOffsets(target.displayTimeZone),
    ...(target.filesBucketName === undefined ? {} : { filesBucket: target.filesBucketName }),
    audit,
    // Every part in flight is written by this one process: they share one import's groups.
    writeSlots: writeSlots(WRITE_CONCURRENCY),
    ...(partBytes === undefined ? {} : { partBytes }),
  };
}

/** Runs the workflow over an object already in the drop; resolves with its report. */
export async function runWorkflow(
  stepDeps: StepDeps,
  input: ExecutionInput,
  options: LocalDropOptions = {},
): Promise<ImportReport> {
  const progress: Progress = { phase: 'planning', parts: 0, partsDone: 0, records: 0 };
  const tell = (change: Partial<Progress>) => {
    Object.assign(progress, change);
    options.onProgress?.({ ...progress });
  };
  // Records count as each group is written, not as each part ends.
  const deps: StepDeps = {
    ...stepDeps,
    onRecordsWritten: (n) => tell({ records: progress.records + n }),
  };
  const wrap = (name: keyof typeof FUNCTIONS, h: Handler): Handler =>
    options.wrap?.[name]?.(h) ?? h;
  const plan = planHandler(deps);
  const checkPart = checkPartHandler(deps);
  const writePart = writePartHandler(deps);
  let checking = true;
  // Plan's, from the key as stored; until Plan has run, the one Report makes from the event's.
  let importId = importIdOf(input.key, input.versionId);
  let partFailed = false;
  let claimedBy: string | undefined;
  const handlers: Record<string, Handler> = {
    [FUNCTIONS.plan]: wrap('plan', async (event: ExecutionInput) => {
      tell({ phase: 'planning' });
      const planned: PlanResult & { items?: Part[] } = await plan(event);
      importId = planned.importId;
      claimedBy = planned.claimedBy;
      planned.items =
        planned.alreadyImported || planned.claimedBy !== undefined
          ? []
          : ((await readJson<Part[]>(deps.s3, event.bucket, planned.manifestKey)) ?? []);
      tell({ parts: planned.parts });
      tell({ phase: 'checking', parts: planned.parts });
      return planned;
    }),
    [FUNCTIONS.checkPart]: wrap('checkPart', async (event: Parameters<typeof checkPart>[0]) => {
      const result = await checkPart(event);
      tell({ partsDone: progress.partsDone + 1, records: progress.records + result.records });
      return result;
    }),
    [FUNCTIONS.verify]: wrap('verify', verifyHandler(deps) as Handler),
    [FUNCTIONS.writePart]: wrap(
      'writePart',
      async (event: Parameters<typeof writePart>[0], context, signal) => {
        // A stage's Map starts no part once one has failed; the interpreter's inline Map would.
        if (partFailed)
          throw new ImportStopped(`part ${event.part.index} was not written: another part failed`);
        if (checking) {
          checking = false;
          // Every part checked: their records are the file's.
          tell({ phase: 'writing', partsDone: 0, records: 0, total: progress.records });
        }
        const result: PartCounts = await writePart(event, context, signal);
        tell({ partsDone: progress.partsDone + 1 });
        return result;
      },
    ),
    [FUNCTIONS.report]: wrap('report', async (event: never) => {
      tell({ phase: 'reporting' });
      return reportHandler(deps)(event);
    }),
  };
  const definition = localDefinition(
    importWorkflowDefinition({
      planFunctionArn: FUNCTIONS.plan,
      checkPartFunctionArn: FUNCTIONS.checkPart,
      verifyFunctionArn: FUNCTIONS.verify,
      writePartFunctionArn: FUNCTIONS.writePart,
      reportFunctionArn: FUNCTIONS.report,
      importBucketName: input.bucket,
      alarmTopicArn: ALARM_TOPIC_ARN,
      partition: PARTITION,
      concurrency: options.concurrency ?? LOCAL_CONCURRENCY,
    }),
  );
  // Not validated again on every drop (its CPU cost: functions/sdk/README.md):
  // test/unit/import-runner.test.ts validates the stage's definition and this local form of it
  // with asl-validator.
  const { StateMachine } = await loadStepFunctions();
  const machine = new StateMachine(definition as never, {
    validationOptions: { noValidate: true },
  });
  const name = options.execution?.name ?? randomUUID();
  const execution = machine.run(input as never, {
    context: {
      Execution: {
        Id: localExecutionArn(name),
        Name: name,
        RedriveCount: options.execution?.redriveCount ?? 0,
      },
    } as never,
    overrides: {
      taskResourceLocalHandlers: localHandlers(definition, handlers) as never,
      // Retries wait 0.1 s locally, not the stage's backoff.
      retryIntervalOverrides: Object.fromEntries(
        allStateNames(definition).map((name) => [name, 100]),
      ),
    },
  });
  // A part failed for good (its retries spent): the Map's other parts are not started.
  void (async () => {
    for await (const event of execution.eventLogs)
      if (event.type === 'MapIterationFailed') partFailed = true;
  })();
  try {
    await execution.result;
  } catch {
    // A failed execution still wrote its report when Report ran (Catch -> ReportFailure).
  }
  if (claimedBy !== undefined)
    throw new DuplicateExecution(
      `another execution of this upload (${claimedBy}) imports it: this one wrote nothing`,
    );
  const report = await readJson<ImportReport>(deps.s3, input.bucket, reportKey(importId));
  if (!report) throw new Error(`the import of ${input.key} ended without a report`);
  return report;
}

function allStateNames(definition: Definition): string[] {
  return Object.entries(definition.States).flatMap(([name, state]) => [
    name,
    ...(state.Type === 'Map'
      ? allStateNames((state.ItemProcessor ?? state.Iterator) as Definition)
      : []),
  ]);
}
