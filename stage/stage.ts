/** A deploy-time setting or stage that cannot be used: synth refuses it with the rule. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

/** The stack's name in CloudFormation without a stage; physical names are generated from it. */
export const BASE_STACK_NAME = 'CurrencyExchangeReadApi';

/**
 * Which copy of the product a synth or deploy is for (SPEC 7), from CDK context:
 * `-c stage=<name>`, `-c disposable=true`, `-c alarmEmail=<address>`.
 *
 * No stage is the stack deployed before stages existed: same stack name, same logical ids, so
 * nothing already deployed moves. A named stage is its own stack `CurrencyExchangeReadApi-<stage>`;
 * CloudFormation derives every generated physical name (table, bucket, functions, user pool, log
 * groups, topic) from the stack name, and the few names set here (alarms, dashboard) from it too.
 */
export interface Stage {
  /** undefined for the default stage. */
  readonly name: string | undefined;
  readonly stackName: string;
  /**
   * A stage that `cdk destroy` removes whole, data included: RemovalPolicy.DESTROY, no deletion
   * protection, buckets emptied. Only a named stage can be disposable, so that a typo on the
   * command line cannot put the production data at risk.
   */
  readonly disposable: boolean;
  /** Subscribed to the stage's alarm topic when set. */
  readonly alarmEmail: string | undefined;
}

/**
 * Lower-case letters, digits and single hyphens, starting with a letter, at most 20 characters:
 * valid in a stack name, in the bucket names CloudFormation derives from it (lower case only)
 * and short enough that generated function and alarm names keep a readable stage in them.
 */
const STAGE_NAME = /^[a-z](?:[a-z0-9]|-(?=[a-z0-9])){0,19}$/;
/**
 * One @, no spaces, a dot in the domain: a typo is caught at synth, not by a silent topic or a
 * user pool whose mail goes nowhere (the alarm e-mail here, `sesFromAddress` in settings.ts).
 */
export const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

export const DEFAULT_STAGE: Stage = {
  name: undefined,
  stackName: BASE_STACK_NAME,
  disposable: false,
  alarmEmail: undefined,
};

/** A true/false context value (`-c name=true`); absent is false. */
export function flag(raw: unknown, name: string): boolean {
  if (raw === undefined || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  throw new SettingsError(`${name} must be true or false, got: ${String(raw)}`);
}

/** Checks a stage given as values (tests, or context already read). */
export function makeStage(options: {
  name?: string | undefined;
  disposable?: boolean;
  alarmEmail?: string | undefined;
}): Stage {
  const { name, disposable = false, alarmEmail } = options;
  if (name !== undefined && !STAGE_NAME.test(name)) {
    throw new SettingsError(
      `stage must be 1 to 20 lower-case letters, digits or single hyphens, starting with a ` +
        `letter (e.g. dev, test-2), got: ${JSON.stringify(name)}. Omit -c stage for the default stack.`,
    );
  }
  if (disposable && name === undefined) {
    throw new SettingsError(
      'disposable=true needs a named stage (-c stage=<name>): the default stack keeps its data ' +
        'on cdk destroy',
    );
  }
  if (alarmEmail !== undefined && !EMAIL.test(alarmEmail)) {
    throw new SettingsError(`alarmEmail is not an e-mail address: ${alarmEmail}`);
  }
  return {
    name,
    stackName: name === undefined ? BASE_STACK_NAME : `${BASE_STACK_NAME}-${name}`,
    disposable,
    alarmEmail,
  };
}

/** Where settings come from: CDK context (a construct's `node`), read without loading CDK. */
export interface ContextSource {
  tryGetContext(key: string): unknown;
}

/** Reads the stage from CDK context; refuses a bad value with the reason. */
export function stageFromContext(node: ContextSource): Stage {
  const name = node.tryGetContext('stage') as unknown;
  const email = node.tryGetContext('alarmEmail') as unknown;
  return makeStage({
    name: name === undefined ? undefined : String(name),
    disposable: flag(node.tryGetContext('disposable'), 'disposable'),
    alarmEmail: email === undefined || email === '' ? undefined : String(email),
  });
}
