/**
 * Which user pool and table `npm run access` acts on: a deployed stage's when USER_POOL_ID and
 * TABLE_NAME are set (its stack outputs UserPoolId and TableName; AWS credentials and region from
 * the environment), otherwise the running local rig's (.local/state.json, or LOCAL_DATA_DIR).
 */
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { attachServerClock, type ServerClock } from './server-clock.ts';
import { incompleteState, readLocalState, runningDataDir } from '../../local/rig/state.ts';

export interface AccessTarget {
  readonly cognito: CognitoIdentityProviderClient;
  readonly userPoolId: string;
  /** Cognito's clock, read from its answers: the clock that stamps a token's iat. */
  readonly cognitoClock: ServerClock;
  readonly dynamoDb: DynamoDBClient;
  readonly tableName: string;
  /** For the operator: which stack this is, e.g. "user pool eu-west-1_abc, table t". */
  readonly where: string;
  /** The local rig: Cognito sends no mail, so the command says what it would. */
  readonly local: boolean;
  destroy(): void;
}

export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** The SDK's retries for every call the command makes. */
const io = { maxAttempts: 3 };

/** Credentials the local emulators accept (they check none). */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

function make(
  cognito: CognitoIdentityProviderClient,
  userPoolId: string,
  dynamoDb: DynamoDBClient,
  tableName: string,
  where: string,
  local: boolean,
): AccessTarget {
  return {
    cognito,
    userPoolId,
    cognitoClock: attachServerClock(cognito),
    dynamoDb,
    tableName,
    where,
    local,
    destroy: () => {
      cognito.destroy();
      dynamoDb.destroy();
    },
  };
}

export function accessTarget(env: NodeJS.ProcessEnv = process.env): AccessTarget {
  if (env.USER_POOL_ID || env.TABLE_NAME) {
    if (!env.USER_POOL_ID || !env.TABLE_NAME) {
      throw new TargetError(
        'Set both USER_POOL_ID and TABLE_NAME (stack outputs UserPoolId and TableName) for a ' +
          'deployed stage, or neither for the local rig',
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
      false,
    );
  }
  return localAccessTarget(env);
}

/**
 * The running local rig's user pool and table (.local/state.json, or LOCAL_DATA_DIR's, or
 * the one running elsewhere: local/rig/state.ts runningDataDir).
 */
export function localAccessTarget(env: NodeJS.ProcessEnv = process.env): AccessTarget {
  const dataDir = runningDataDir(env);
  let state;
  try {
    state = readLocalState(dataDir);
  } catch (error) {
    throw new TargetError(
      `${(error as Error).message}, or set USER_POOL_ID and TABLE_NAME for a deployed stage`,
    );
  }
  const { cognito, tableName, dynamoDbEndpoint } = state;
  if (!cognito?.endpoint || !cognito.userPoolId || !tableName || !dynamoDbEndpoint) {
    throw new TargetError(incompleteState(dataDir).message);
  }
  const local = { region: 'us-east-1', credentials: LOCAL_CREDENTIALS, ...io };
  return make(
    new CognitoIdentityProviderClient({ ...local, endpoint: cognito.endpoint }),
    cognito.userPoolId,
    new DynamoDBClient({ ...local, endpoint: dynamoDbEndpoint }),
    tableName,
    `the local rig (user pool ${cognito.userPoolId}, table ${tableName})`,
    true,
  );
}
