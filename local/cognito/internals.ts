/**
 * The parts of cognito-local 5.3.0's internals that the local wrappers (access.ts and mfa.ts)
 * and server.ts reach into, typed once here. They are its user and user pool service
 * (services/userPoolService.d.ts in the package), its router, its TOTP service and its error
 * classes, which the server turns into Cognito's 400 answers.
 */
import { createRequire } from 'node:module';

export interface LocalUser {
  Username: string;
  Password: string;
  UserStatus: string;
  Enabled?: boolean;
  MFAOptions?: { DeliveryMedium?: string }[];
  UserMFASettingList?: string[];
  PreferredMfaSetting?: string;
  RefreshTokens?: string[];
  SoftwareTokenMfaConfiguration?: {
    Secret: string;
    Verified: boolean;
    FriendlyDeviceName?: string;
  };
  [other: string]: unknown;
}
export interface PasswordPolicy {
  MinimumLength?: number;
  RequireUppercase?: boolean;
  RequireLowercase?: boolean;
  RequireNumbers?: boolean;
  RequireSymbols?: boolean;
}
export interface LocalUserPool {
  readonly options: {
    Id: string;
    MfaConfiguration?: string;
    Policies?: { PasswordPolicy?: PasswordPolicy };
  };
  getUserByUsername(ctx: unknown, username: string): Promise<LocalUser | null>;
  getUserByRefreshToken(ctx: unknown, token: string): Promise<LocalUser | null>;
  saveUser(ctx: unknown, user: LocalUser): Promise<void>;
  storeRefreshToken(ctx: unknown, token: string, user: LocalUser): Promise<void>;
  listUserGroupMembership(ctx: unknown, user: LocalUser): Promise<readonly string[]>;
}
export interface LocalAppClient {
  ClientId: string;
  ExplicitAuthFlows?: string[];
}
export interface LocalCognitoService {
  getUserPool(ctx: unknown, userPoolId: string): Promise<LocalUserPool>;
  getUserPoolForClientId(ctx: unknown, clientId: string): Promise<LocalUserPool>;
  getAppClient(ctx: unknown, clientId: string): Promise<LocalAppClient | null>;
}

type Route = (ctx: unknown, req: Record<string, unknown>) => Promise<unknown>;
/** cognito-local's router: the handler of each target (InitiateAuth, ...). */
export type LocalRouter = (target: string) => Route;

export interface LocalErrors {
  CognitoError: new (code: string, message: string) => Error;
  NotAuthorizedError: new (message?: string) => Error;
  UserNotFoundError: new (message?: string) => Error;
  InvalidParameterError: new (message?: string) => Error;
  CodeMismatchError: new () => Error;
  UnsupportedError: new (message?: string) => Error;
}

export interface LocalTotp {
  generateSecret(): string;
  verify(secret: string, code: string): boolean;
}

const require = createRequire(import.meta.url);

export function cognitoLocalErrors(): LocalErrors {
  return require('cognito-local/lib/errors.js');
}

export function cognitoLocalTotp(): LocalTotp {
  return require('cognito-local/lib/services/totp.js');
}
