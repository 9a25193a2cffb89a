import { Aws, Duration } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnUserPoolRiskConfigurationAttachment,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  UserPoolClient,
  UserPoolEmail,
  UserPoolGroup,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { CUSTOMER_READERS_GROUP } from '../core/groups.ts';
import { PASSWORD_POLICY } from '../core/password-policy.ts';
import { DEFAULT_THREAT_PROTECTION, type ThreatProtection } from '../stage/settings.ts';
import { keptRemovalPolicyFor } from './retention.ts';

/**
 * Lifetime of access and ID tokens (SPEC 8): at most 15 minutes, so that a token copied out of a
 * session is worth little for long even before anyone runs `npm run access`. Refresh tokens stay
 * 12 hours (a working day); `npm run access -- revoke` revokes them.
 */
export const TOKEN_VALIDITY = Duration.minutes(15);
/** Lifetime of refresh tokens: a working day. */
export const REFRESH_TOKEN_VALIDITY = Duration.hours(12);

/**
 * The sign-in flows the app client allows, and nothing else: USER_PASSWORD_AUTH is what the
 * docs, `npm run token` and `npm run smoke` (sign-in/flow.ts), the staff page and the local
 * stack use, each then answering the TOTP challenge. SRP is not allowed: nothing uses it, and
 * Cognito does not check SRP sign-ins for compromised credentials, so allowing it would let a
 * leaked password past that check.
 */
export const AUTH_FLOWS = { userPassword: true } as const;

/** Cognito's mode for each `threatProtection` setting (stage/settings.ts). */
export const THREAT_PROTECTION_MODE: Record<ThreatProtection, StandardThreatProtectionMode> = {
  enforced: StandardThreatProtectionMode.FULL_FUNCTION,
  audit: StandardThreatProtectionMode.AUDIT_ONLY,
};

/**
 * What happens to each sign-in flow the client allows, in each mode (Identity.signInFlows): the
 * same words in docs/operations.md and docs/security.md (test/infra/checks/identity.ts holds them
 * together). It was the AwsSolutions-COG2 acknowledgement's reason while MFA was optional; with
 * MFA required (issue 31) COG2 has nothing to acknowledge. Sources: Cognito developer guide,
 * "Advanced security with threat protection" (compromised credentials are checked in
 * username-password flows, not in SRP or custom authentication), "Threat protection"
 * (audit-only mode takes no action) and "TOTP software token MFA" (MFA_SETUP, SOFTWARE_TOKEN_MFA),
 * checked 2026-11-26.
 */
export function threatProtectionReason(mode: ThreatProtection): string {
  const mfa =
    'MFA is REQUIRED, TOTP only (no SMS): a correct password alone yields no tokens. ' +
    "USER_PASSWORD_AUTH then answers SOFTWARE_TOKEN_MFA (a code of the user's authenticator " +
    'app) or, for a user who has not enrolled one yet, MFA_SETUP (the first sign-in enrols it). ' +
    'The app client allows USER_PASSWORD_AUTH and REFRESH_TOKEN_AUTH only (no SRP, no custom ' +
    'auth). ';
  const refresh =
    'REFRESH_TOKEN_AUTH carries no password, so no compromised-credential check applies to ' +
    `it: a refresh token lasts ${REFRESH_TOKEN_VALIDITY.toHours()} hours and ` +
    'npm run access -- revoke ends it. Sign-up is off; no notification e-mails.';
  if (mode === 'enforced')
    return (
      mfa +
      'Plus threat protection runs in full-function mode (ENFORCED, threatProtection=enforced) ' +
      'for all app clients (Identity/RiskConfiguration): a USER_PASSWORD_AUTH sign-in with ' +
      'compromised credentials is blocked (the user must reset the password), and so is a ' +
      'password change to a compromised password; every USER_PASSWORD_AUTH sign-in is scored ' +
      'for account takeover risk: high is blocked; low and medium go on to the second factor ' +
      'every sign-in meets (the medium action, an MFA challenge if the user has TOTP, adds ' +
      'nothing while MFA is required). ' +
      refresh
    );
  return (
    mfa +
    'Plus threat protection runs in audit-only mode (AUDIT, threatProtection=audit): every ' +
    'USER_PASSWORD_AUTH sign-in and password change is checked for compromised credentials ' +
    'and scored for account takeover risk, and Cognito logs the result and publishes metrics, ' +
    'but blocks nothing and asks for nothing beyond the second factor every sign-in meets; the ' +
    'actions in Identity/RiskConfiguration take effect only with threatProtection=enforced. ' +
    refresh
  );
}

export interface IdentityProps {
  /** A test stage's pool (stage/stage.ts): deleted with the stack. @default false */
  readonly disposable?: boolean;
  /** @default DEFAULT_THREAT_PROTECTION (stage/settings.ts): audit */
  readonly threatProtection?: ThreatProtection;
  /**
   * Mail to staff through SES from this verified address (Settings.sesFromAddress).
   * @default Cognito's default e-mail
   */
  readonly sesFromAddress?: string;
}

/**
 * Who may call the API: a Cognito user pool of back-office staff, created by an administrator
 * (no self sign-up), and the one app client whose tokens the API accepts.
 */
export class Identity extends Construct {
  /** What happens to each sign-in flow of the client, in this pool's mode (threatProtectionReason). */
  readonly signInFlows: string;
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly customerReaders: UserPoolGroup;

  constructor(scope: Construct, id: string, props: IdentityProps = {}) {
    super(scope, id);
    const disposable = props.disposable ?? false;
    const threatProtection = props.threatProtection ?? DEFAULT_THREAT_PROTECTION;

    this.userPool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      // The local pool holds new passwords to the same rules (local/cognito/user-pool.ts).
      passwordPolicy: { ...PASSWORD_POLICY, tempPasswordValidity: Duration.days(3) },
      // Nobody in with a password alone (SPEC 8): every sign-in answers a TOTP challenge, and a
      // user's first sign-in enrols their authenticator app (MFA_SETUP). TOTP apps only: SMS
      // would need an SNS role and spend limits, and is the weaker factor.
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Cognito's default e-mail sends 50 a day per account (Quotas in Amazon Cognito); SES
      // sends as many as the account's SES quota allows, from the business's own address. The
      // identity is looked for in the stage's region (the stack has no region of its own at
      // synth), which Cognito recommends ("Email settings for Amazon Cognito user pools").
      ...(props.sesFromAddress === undefined
        ? {}
        : {
            email: UserPoolEmail.withSES({
              fromEmail: props.sesFromAddress,
              sesRegion: Aws.REGION,
            }),
          }),
      // Plus: compromised-credential checks and adaptive authentication (RiskConfiguration below).
      // Staff pools are small, so the per-user price is negligible next to the data at stake.
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: THREAT_PROTECTION_MODE[threatProtection],
      deletionProtection: !disposable,
      removalPolicy: keptRemovalPolicyFor(disposable),
    });
    this.signInFlows = threatProtectionReason(threatProtection);

    this.client = this.userPool.addClient('ApiClient', {
      // A public client (CLI, browser): a secret could not be kept secret there.
      generateSecret: false,
      authFlows: AUTH_FLOWS,
      // Tokens are obtained with InitiateAuth; no hosted UI, so no OAuth flows or callback URLs.
      disableOAuth: true,
      accessTokenValidity: TOKEN_VALIDITY,
      idTokenValidity: TOKEN_VALIDITY,
      refreshTokenValidity: REFRESH_TOKEN_VALIDITY,
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });

    this.customerReaders = this.userPool.addGroup('CustomerReaders', {
      groupName: CUSTOMER_READERS_GROUP,
      description: 'May read customer records (GET /customers/{customer_id})',
    });

    // Threat protection as configured, not Cognito's defaults: signInFlows above relies on it. The actions apply in full-function mode only (threatProtection=enforced).
    // No action notifies: that takes an SES identity in the risk configuration itself, beside
    // sesFromAddress.
    new CfnUserPoolRiskConfigurationAttachment(this, 'RiskConfiguration', {
      userPoolId: this.userPool.userPoolId,
      clientId: 'ALL',
      compromisedCredentialsRiskConfiguration: {
        eventFilter: ['SIGN_IN', 'PASSWORD_CHANGE', 'SIGN_UP'],
        actions: { eventAction: 'BLOCK' },
      },
      accountTakeoverRiskConfiguration: {
        actions: {
          lowAction: { eventAction: 'NO_ACTION', notify: false },
          mediumAction: { eventAction: 'MFA_IF_CONFIGURED', notify: false },
          highAction: { eventAction: 'BLOCK', notify: false },
        },
      },
    });
  }
}
