/** The Cognito user pool, its one app client, the customer-readers group and its threat protection. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { threatProtectionReason, type Identity } from '../../../lib/identity.ts';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import {
  DISPOSABLE_DEV_CONTEXT,
  EVERY_OPTION_CONTEXT,
  onlyResource,
  synthesize,
  type CfnTemplate,
  type Synthesized,
} from '../synth.ts';

let s: Synthesized;
let dev: Synthesized;
/** The default stage as `-c threatProtection=enforced` deploys it, after its weeks in audit. */
let enforced: Synthesized;
beforeAll(() => {
  s = synthesize();
  dev = synthesize({ context: DISPOSABLE_DEV_CONTEXT });
  enforced = synthesize({ context: { threatProtection: 'enforced' } });
});

/** What the construct says of its sign-in flows (threatProtectionReason, the docs' words). */
const flowsOf = (identity: Identity): string => identity.signInFlows;

/** The AwsSolutions rules acknowledged on a construct. */
function acknowledged(construct: IConstruct): string[] {
  return construct.node.metadata
    .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((m) => Object.keys(m.data as Record<string, string>));
}

function explicitAuthFlows(json: CfnTemplate): string[] {
  const [, client] = onlyResource(json, 'AWS::Cognito::UserPoolClient');
  return [...(client.Properties!.ExplicitAuthFlows as string[])].sort();
}

function advancedSecurityMode(json: CfnTemplate): string {
  const [, pool] = onlyResource(json, 'AWS::Cognito::UserPool');
  return pool.Properties!.UserPoolAddOns.AdvancedSecurityMode as string;
}

test('the pool: no self sign-up, sign-in by e-mail, strong passwords, MFA required with TOTP only, retained', () => {
  const [, pool] = onlyResource(s.json, 'AWS::Cognito::UserPool');
  expect(pool.Properties).toMatchObject({
    AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
    UsernameAttributes: ['email'],
    DeletionProtection: 'ACTIVE',
  });
  // Issue 31: nobody in with a password alone; TOTP apps only, no SMS (nor e-mail) codes.
  for (const json of [s.json, dev.json]) {
    const [, each] = onlyResource(json, 'AWS::Cognito::UserPool');
    expect(each.Properties!.MfaConfiguration).toBe('ON');
    expect(each.Properties!.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
    expect(each.Properties!.SmsConfiguration).toBeUndefined();
  }
  // MFA required: cdk-nag's COG2 has no finding, so nothing on the pool acknowledges it.
  expect(acknowledged(s.stack.identity.userPool)).not.toContainEqual(
    expect.stringContaining('AwsSolutions-COG2'),
  );
  const password = pool.Properties!.Policies.PasswordPolicy;
  expect(password.MinimumLength).toBeGreaterThanOrEqual(12);
  expect(password).toMatchObject({
    RequireLowercase: true,
    RequireUppercase: true,
    RequireNumbers: true,
    RequireSymbols: true,
  });
  expect(pool.DeletionPolicy).toBe('Retain');
});

test('the pool is on the Plus plan with threat protection in audit on a first deploy', () => {
  const [, pool] = onlyResource(s.json, 'AWS::Cognito::UserPool');
  expect(pool.Properties).toMatchObject({
    UserPoolTier: 'PLUS',
    UserPoolAddOns: { AdvancedSecurityMode: 'AUDIT' },
  });
});

/**
 * Issue 23: the mode is a stage setting. Issue 54: every stage starts in audit, as AWS advises;
 * enforcing is `-c threatProtection=enforced`.
 */
test('threat protection mode per stage and per -c threatProtection', () => {
  expect(advancedSecurityMode(s.json)).toBe('AUDIT');
  expect(advancedSecurityMode(dev.json)).toBe('AUDIT');
  const cases: [Record<string, unknown>, 'AUDIT' | 'ENFORCED'][] = [
    [{ threatProtection: 'enforced' }, 'ENFORCED'],
    [{ ...DISPOSABLE_DEV_CONTEXT, threatProtection: 'enforced' }, 'ENFORCED'],
  ];
  for (const [context, mode] of cases) {
    const other = synthesize({ context });
    expect(advancedSecurityMode(other.json)).toBe(mode);
    // Still the Plus plan and the same configured actions: only the mode changes.
    const [, pool] = onlyResource(other.json, 'AWS::Cognito::UserPool');
    expect(pool.Properties!.UserPoolTier).toBe('PLUS');
    onlyResource(other.json, 'AWS::Cognito::UserPoolRiskConfigurationAttachment');
    expect(flowsOf(other.stack.identity)).toBe(
      threatProtectionReason(mode === 'AUDIT' ? 'audit' : 'enforced'),
    );
  }
});

const MINUTES: Record<string, number> = { seconds: 1 / 60, minutes: 1, hours: 60, days: 1440 };

test('the one app client: no secret, USER_PASSWORD_AUTH and refresh only, tokens valid 15 minutes at most', () => {
  const [, client] = onlyResource(s.json, 'AWS::Cognito::UserPoolClient');
  const p = client.Properties!;
  expect(p.UserPoolId).toEqual({ Ref: s.logicalId(s.stack.identity.userPool) });
  expect(p.GenerateSecret).not.toBe(true);
  // No SRP: nothing signs in with it, and Cognito does not check it for compromised credentials.
  expect(explicitAuthFlows(s.json)).toEqual([
    'ALLOW_REFRESH_TOKEN_AUTH',
    'ALLOW_USER_PASSWORD_AUTH',
  ]);
  expect(p.AllowedOAuthFlows).toBeUndefined();
  expect(p.AllowedOAuthFlowsUserPoolClient).not.toBe(true);
  // CloudFormation's default unit is hours for access and id tokens.
  const units = p.TokenValidityUnits ?? {};
  const accessMinutes = p.AccessTokenValidity * MINUTES[units.AccessToken ?? 'hours']!;
  const idMinutes = p.IdTokenValidity * MINUTES[units.IdToken ?? 'hours']!;
  expect(accessMinutes).toBeGreaterThan(0);
  expect(accessMinutes).toBeLessThanOrEqual(15); // SPEC 8
  expect(idMinutes).toBeLessThanOrEqual(15);
  expect(p.EnableTokenRevocation).toBe(true);
  expect(p.PreventUserExistenceErrors).toBe('ENABLED');
});

test('the customer-readers group exists in the pool', () => {
  const [, group] = onlyResource(s.json, 'AWS::Cognito::UserPoolGroup');
  expect(group.Properties).toMatchObject({
    GroupName: 'customer-readers',
    UserPoolId: { Ref: s.logicalId(s.stack.identity.userPool) },
  });
});

/** Issue 17: threat protection as the sign-in flows' statement claims it, not Cognito's defaults. */
test('threat protection is configured: compromised credentials blocked, account takeover by risk level, no e-mails', () => {
  const [, attachment] = onlyResource(s.json, 'AWS::Cognito::UserPoolRiskConfigurationAttachment');
  expect(attachment.Properties).toEqual({
    UserPoolId: { Ref: s.logicalId(s.stack.identity.userPool) },
    ClientId: 'ALL',
    CompromisedCredentialsRiskConfiguration: {
      EventFilter: ['SIGN_IN', 'PASSWORD_CHANGE', 'SIGN_UP'],
      Actions: { EventAction: 'BLOCK' },
    },
    // No NotifyConfiguration: notifying would need an SES identity.
    AccountTakeoverRiskConfiguration: {
      Actions: {
        LowAction: { EventAction: 'NO_ACTION', Notify: false },
        MediumAction: { EventAction: 'MFA_IF_CONFIGURED', Notify: false },
        HighAction: { EventAction: 'BLOCK', Notify: false },
      },
    },
  });
});

/**
 * What Cognito checks per flow (developer guide, "Advanced security with threat protection",
 * checked 2026-11-25): compromised credentials in username-password flows only, "not in secure
 * remote password (SRP) or custom authentication"; a refresh carries no password at all.
 */
const COMPROMISED_CREDENTIALS_CHECKED = new Set([
  'ALLOW_USER_PASSWORD_AUTH',
  'ALLOW_ADMIN_USER_PASSWORD_AUTH',
]);

describe.each([
  ['default stage (audit)', () => s],
  ['disposable dev stage (audit)', () => dev],
  ['default stage with -c threatProtection=enforced', () => enforced],
])(
  '%s: the sign-in flows statement says what happens to each flow the client allows',
  (_n, get) => {
    test('it names every allowed flow, and claims no compromised-credential check for a flow without one', () => {
      const reason = flowsOf(get().stack.identity);
      const enforced = advancedSecurityMode(get().json) === 'ENFORCED';
      for (const flow of explicitAuthFlows(get().json)) {
        const name = flow.replace(/^ALLOW_/, '');
        expect([flow, reason.includes(name)]).toEqual([flow, true]);
        if (!COMPROMISED_CREDENTIALS_CHECKED.has(flow))
          expect([flow, reason]).toEqual([
            flow,
            expect.stringMatching(new RegExp(`${name}[^.]*no compromised-credential check`)),
          ]);
      }
      // Blocking is claimed exactly when the mode enforces it, and audit mode says it blocks nothing.
      expect(/compromised credentials is blocked/.test(reason)).toBe(enforced);
      expect(/blocks nothing/.test(reason)).toBe(!enforced);
      // Issue 31: a password alone yields a challenge, never tokens, in either mode.
      expect(reason).toMatch(/^MFA is REQUIRED, TOTP only \(no SMS\)/);
      expect(reason).toContain('SOFTWARE_TOKEN_MFA');
      expect(reason).toContain('MFA_SETUP');
      // The old wording claimed blocking "at sign-in" for every flow, SRP included.
      expect(reason).not.toMatch(/compromised credentials are blocked at sign-in/);
    });

    test('docs/operations/users-and-access.md states it word for word', () => {
      const operations = readFileSync(
        join(PROJECT_ROOT, 'docs', 'operations', 'users-and-access.md'),
        'utf8',
      );
      const reason = flowsOf(get().stack.identity);
      const flat = operations.replace(/\s+/g, ' ');
      expect({ inDocs: flat.includes(reason), reason }).toEqual({ inDocs: true, reason });
    });
  },
);

test('the sign-in flows statement says what is configured, and only that', () => {
  const reason = flowsOf(enforced.stack.identity);
  expect(reason).toContain(
    'account takeover risk: high is blocked; low and medium go on to the second factor every ' +
      'sign-in meets (the medium action, an MFA challenge if the user has TOTP, adds nothing ' +
      'while MFA is required).',
  );
  expect(reason).toContain('no notification e-mails.');
  // The earlier wordings: a challenge for every risky sign-in of enrolled users; MFA optional.
  expect(reason).not.toMatch(/challenges risky sign-ins|allowed otherwise|OPTIONAL/);
});

/** Issue 54: Cognito's default e-mail sends 50 a day; a stage may send through SES instead. */
test("staff mail: Cognito's default e-mail unless sesFromAddress names a verified SES address", () => {
  const emailOf = (json: CfnTemplate) =>
    onlyResource(json, 'AWS::Cognito::UserPool')[1].Properties!.EmailConfiguration;
  for (const json of [s.json, dev.json])
    expect(emailOf(json) ?? { EmailSendingAccount: 'COGNITO_DEFAULT' }).toEqual({
      EmailSendingAccount: 'COGNITO_DEFAULT',
    });
  const ses = synthesize({ context: EVERY_OPTION_CONTEXT });
  expect(EVERY_OPTION_CONTEXT.sesFromAddress).toBe('staff-access@example.com');
  expect(emailOf(ses.json)).toEqual({
    EmailSendingAccount: 'DEVELOPER',
    From: 'staff-access@example.com',
    // The identity in the stage's own region, the stack being region-agnostic.
    SourceArn: {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ses:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':identity/staff-access@example.com',
        ],
      ],
    },
  });
});
