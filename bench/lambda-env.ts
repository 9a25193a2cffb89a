import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/project-root.ts';
import { apiFunctionEnv } from '../core/function-env.ts';
import { DEFAULT_SETTINGS } from '../stage/settings.ts';
import { DEPLOYED_NODE_OPTIONS } from './bundles.ts';
import { BENCH_READ_BUDGETS, BUCKET, TABLE } from './config.ts';

/** The environment of a function in Lambda: Lambda's own variables and the stage's (core/function-env.ts). */
export function lambdaEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    TZ: ':UTC',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SESSION_TOKEN: 'local-session',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    ...apiFunctionEnv(DEFAULT_SETTINGS, {
      tableName: TABLE,
      bucketName: BUCKET,
      // As a stage's: 64 letters and digits (lib/api.ts).
      cursorKey: 'bench0cursor0key0'.repeat(4).slice(0, 64),
    }),
    ...BENCH_READ_BUDGETS,
    // Lambda's own module path: where a default CDK function finds the SDK the runtime provides
    // (/var/runtime/node_modules there, the project's node_modules here).
    NODE_PATH: join(PROJECT_ROOT, 'node_modules'),
    // As deployed (lib/project-function.ts): none.
    NODE_OPTIONS: DEPLOYED_NODE_OPTIONS,
    ...extra,
  };
}
