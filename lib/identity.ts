import { Duration, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnUserPoolRiskConfigurationAttachment,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  UserPoolClient,
  UserPoolGroup,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { CUSTOMER_READERS_GROUP } from '../core/groups';
import { removalPolicyFor } from './stage';

/**
 * Lifetime of access and ID tokens (SPEC 8): at most 15 minutes, so that a token copied out of a
 * session is worth little for long even before anyone runs `npm run access`. Refresh tokens stay
 * 12 hours (a working day); `npm run access -- revoke` revokes them.
 */
export const TOKEN_VALIDITY = Duration.minutes(15);

export interface IdentityProps {
  /** A test stage's pool (lib/stage.ts): deleted with the stack. @default false */
  readonly disposable?: boolean;
}

/**
 * Who may call the API: a Cognito user pool of back-office staff, created by an administrator
 * (no self sign-up), and the one app client whose tokens the API accepts.
 */
export class Identity extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly customerReaders: UserPoolGroup;

  constructor(scope: Construct, id: string, props: IdentityProps = {}) {
    super(scope, id);
    const disposable = props.disposable ?? false;

    this.userPool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      // TOTP apps only: SMS would need an SNS role and spend limits, and is the weaker factor.
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Plus: compromised-credential checks and adaptive authentication (RiskConfiguration below).
      // Staff pools are small, so the per-user price is negligible next to the data at stake.
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION,
      deletionProtection: !disposable,
      removalPolicy: removalPolicyFor(disposable),
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is OPTIONAL by product decision: staff are created by an administrator and get ' +
        'tokens with the documented CLI flow (initiate-auth USER_PASSWORD_AUTH), which cannot ' +
        'complete a forced TOTP enrolment. TOTP is enabled for every user to enrol. Plus ' +
        'threat protection (FULL_FUNCTION) is configured for all app clients ' +
        '(Identity/RiskConfiguration): compromised credentials are blocked at sign-in, ' +
        'password change and sign-up; account takeover risk low is allowed, medium gets an ' +
        'MFA challenge if the user has TOTP (allowed otherwise), high is blocked; no ' +
        'notification e-mails.',
    });

    this.client = this.userPool.addClient('ApiClient', {
      // A public client (CLI, browser): a secret could not be kept secret there.
      generateSecret: false,
      authFlows: { userPassword: true, userSrp: true },
      // Tokens are obtained with InitiateAuth; no hosted UI, so no OAuth flows or callback URLs.
      disableOAuth: true,
      accessTokenValidity: TOKEN_VALIDITY,
      idTokenValidity: TOKEN_VALIDITY,
      refreshTokenValidity: Duration.hours(12),
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });

    this.customerReaders = this.userPool.addGroup('CustomerReaders', {
      groupName: CUSTOMER_READERS_GROUP,
      description: 'May read customer records (GET /customers/{customer_id})',
    });

    // Threat protection as configured, not Cognito's defaults: the COG2 acknowledgement above
    // relies on it. No action notifies: notification e-mails would need an SES identity.
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
