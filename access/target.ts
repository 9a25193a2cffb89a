/**
 * Which user pool and table `npm run access` acts on: a deployed stage's when USER_POOL_ID and
 * TABLE_NAME are set (its stack outputs UserPoolId and TableName; AWS credentials and region from
 * the environment), otherwise the running local stack's (.local/state.json, or LOCAL_DATA_DIR).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LocalState } from '../local/stack';

export interface AccessTarget {
  readonly cognito: CognitoIdentityProviderClient;
  readonly userPoolId: string;
  readonly dynamoDb: DynamoDBClient;
  readonly tableName: string;
  /** For the operator: which stack this is, e.g. "user pool eu-west-1_abc, table t". */
  readonly where: string;
  destroy(): void;
}

export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** Credentials the local emulators accept (they check none). */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export function localStateFile(env: NodeJS.ProcessEnv = process.env): string {
  const dataDir = env.LOCAL_DATA_DIR || resolve(import.meta.dirname, '..', '.local');
  return resolve(dataDir, 'state.json');
}

function make(
  cognito: CognitoIdentityProviderClient,
  userPoolId: string,
  dynamoDb: DynamoDBClient,
  tableName: string,
  where: string,
): AccessTarget {
  return {
    cognito,
    userPoolId,
    dynamoDb,
    tableName,
    where,
    destroy: () => {
      cognito.destroy();
      dynamoDb.destroy();
    },
  };
}

export function accessTarget(env: NodeJS.ProcessEnv = process.env): AccessTarget {
  const io = { maxAttempts: 3 };
  if (env.USER_POOL_ID || env.TABLE_NAME) {
    if (!env.USER_POOL_ID || !env.TABLE_NAME) {
      throw new TargetError(
        'Set both USER_POOL_ID and TABLE_NAME (stack outputs UserPoolId and TableName) for a ' +
          'deployed stage, or neither for the local stack',
      );
    }
    const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    if (!region) throw new TargetError('Set AWS_REGION to act on a deployed stage');
    return make(
      new CognitoIdentityProviderClient({ region, ...io }),
      env.USER_POOL_ID,
      new DynamoDBClient({ region, endpoint: env.DYNAMODB_ENDPOINT, ...io }),
      env.TABLE_NAME,
      `user pool ${env.USER_POOL_ID}, table ${env.TABLE_NAME} (${region})`,
    );
  }
  const file = localStateFile(env);
  let state: Partial<LocalState>;
  try {
    state = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new TargetError(
      `The local stack is not running (no ${file}): start it with \`npm start\`, or set ` +
        'USER_POOL_ID and TABLE_NAME for a deployed stage',
    );
  }
  const { cognito, tableName, dynamoDbEndpoint } = state;
  if (!cognito?.endpoint || !cognito.userPoolId || !tableName || !dynamoDbEndpoint) {
    throw new TargetError(`${file} is incomplete: restart \`npm start\``);
  }
  const local = { region: 'us-east-1', credentials: LOCAL_CREDENTIALS, ...io };
  return make(
    new CognitoIdentityProviderClient({ ...local, endpoint: cognito.endpoint }),
    cognito.userPoolId,
    new DynamoDBClient({ ...local, endpoint: dynamoDbEndpoint }),
    tableName,
    `the local stack (user pool ${cognito.userPoolId}, table ${tableName})`,
  );
}
