/**
 * What `npm start` takes from its environment, checked before anything starts: a value the
 * functions would refuse at their first request (a 500 on every GET, the reason in a log line)
 * or a port that cannot be had is refused here, in one line, with nothing left running. The
 * rules are the functions' own (functions/shared/config.ts, core/read-budgets.ts).
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CURRENCY_RULE, DEFAULT_CURRENCY, isCurrency } from '../../core/settings.ts';
import { operatorSettingsFromEnv } from '../../functions/shared/config.ts';
import { BUSINESS_NAME_RULE, DEFAULT_BUSINESS_NAME, isBusinessName } from '../../stage/settings.ts';
import { assertPortFree } from '../net.ts';
import { localDataDir } from './state.ts';

/** The ports `npm start` listens on or gives the emulators, by variable, with their defaults. */
export const PORT_VARIABLES = {
  PORT: { default: 3000, what: 'the API' },
  DYNAMODB_PORT: { default: 8000, what: 'DynamoDB Local' },
  COGNITO_PORT: { default: 9229, what: 'the local Cognito' },
  S3_PORT: { default: 4569, what: 'the local S3' },
} as const;

export type PortVariable = keyof typeof PORT_VARIABLES;

const PORT_RULE = 'a port number from 1 to 65535, or 0 for any free port';

export class StartSettingError extends Error {
  override readonly name = 'StartSettingError';
}

export interface StartSettings {
  readonly ports: Record<PortVariable, number>;
  readonly dataDir: string;
}

function port(env: NodeJS.ProcessEnv, name: PortVariable): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return PORT_VARIABLES[name].default;
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > 65535)
    throw new StartSettingError(`${name} must be ${PORT_RULE}, got: ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** The local rig passes on no variable set to '' (local/rig/rig.ts): as if unset. */
export function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]),
  );
}

/** The business's currency the staff page shows (a stage's `currency`): CURRENCY, default PHP. */
export function localCurrency(env: NodeJS.ProcessEnv): string {
  const code = env.CURRENCY || DEFAULT_CURRENCY;
  if (!isCurrency(code))
    throw new StartSettingError(`CURRENCY must be ${CURRENCY_RULE}, got: ${JSON.stringify(code)}`);
  return code;
}

/**
 * The business's name the staff page shows and prints (a stage's `businessName`): BUSINESS_NAME,
 * default "Currency Exchange".
 */
export function localBusinessName(env: NodeJS.ProcessEnv): string {
  const name = env.BUSINESS_NAME || DEFAULT_BUSINESS_NAME;
  if (!isBusinessName(name))
    throw new StartSettingError(
      `BUSINESS_NAME must be ${BUSINESS_NAME_RULE}, got: ${JSON.stringify(name)}`,
    );
  return name;
}

/** A data directory that exists and is writable, or that can be made in a writable parent. */
function dataDirProblem(dir: string): string | undefined {
  let existing = dir;
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  if (!statSync(existing).isDirectory())
    return existing === dir ? 'is not a directory' : `is under ${existing}, which is no directory`;
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch {
    return existing === dir ? 'is not writable' : `cannot be made: ${existing} is not writable`;
  }
  return undefined;
}

/**
 * Checks every setting `npm start` passes on; throws StartSettingError naming the variable, the
 * value and what is allowed. Values first, then whether the ports can be had (so that a bad
 * value is reported the same whatever else runs on the machine).
 */
export async function checkStartSettings(env: NodeJS.ProcessEnv): Promise<StartSettings> {
  try {
    operatorSettingsFromEnv(withoutEmpty(env));
  } catch (error) {
    throw new StartSettingError((error as Error).message);
  }
  localCurrency(env);
  localBusinessName(env);

  const dataDir = localDataDir(env);
  const problem = dataDirProblem(dataDir);
  if (problem)
    throw new StartSettingError(
      `LOCAL_DATA_DIR must be a writable directory (or one that can be made), but ${JSON.stringify(dataDir)} ${problem}`,
    );

  const names = Object.keys(PORT_VARIABLES) as PortVariable[];
  const ports = Object.fromEntries(names.map((name) => [name, port(env, name)])) as Record<
    PortVariable,
    number
  >;
  for (const [i, a] of names.entries())
    for (const b of names.slice(i + 1))
      if (ports[a] !== 0 && ports[a] === ports[b])
        throw new StartSettingError(
          `${a} and ${b} are both ${ports[a]}: each needs its own port (0 for any free port)`,
        );
  for (const name of names) {
    if (ports[name] === 0) continue;
    try {
      await assertPortFree(ports[name], `${PORT_VARIABLES[name].what} (${name})`);
    } catch (error) {
      throw new StartSettingError(
        `${(error as Error).message}; set ${name} to a free port, or 0 for any free port`,
      );
    }
  }
  return { ports, dataDir };
}
