/** The Cognito user pool, its one app client, the customer-readers group and its threat protection. */
import { Validations } from 'aws-cdk-lib';
import { onlyResource, synthesize, type Synthesized } from './synth';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});
afterAll(() => s?.cleanup());

test('the pool: no self sign-up, sign-in by e-mail, strong passwords, optional TOTP MFA, retained', () => {
  const [, pool] = onlyResource(s.json, 'AWS::Cognito::UserPool');
  expect(pool.Properties).toMatchObject({
    AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
    UsernameAttributes: ['email'],
    MfaConfiguration: 'OPTIONAL',
    EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
    DeletionProtection: 'ACTIVE',
  });
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

test('the pool is on the Plus plan with threat protection enforced', () => {
  const [, pool] = onlyResource(s.json, 'AWS::Cognito::UserPool');
  expect(pool.Properties).toMatchObject({
    UserPoolTier: 'PLUS',
    UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
  });
});

const MINUTES: Record<string, number> = { seconds: 1 / 60, minutes: 1, hours: 60, days: 1440 };

test('the one app client: no secret, USER_PASSWORD_AUTH and SRP only, tokens valid 15 minutes at most', () => {
  const [, client] = onlyResource(s.json, 'AWS::Cognito::UserPoolClient');
  const p = client.Properties!;
  expect(p.UserPoolId).toEqual({ Ref: s.logicalId(s.stack.identity.userPool) });
  expect(p.GenerateSecret).not.toBe(true);
  expect([...p.ExplicitAuthFlows].sort()).toEqual(
    ['ALLOW_REFRESH_TOKEN_AUTH', 'ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH'].sort(),
  );
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

/** Issue 17: threat protection as claimed in the COG2 acknowledgement, not Cognito's defaults. */
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

test('the COG2 acknowledgement says what is configured, and only that', () => {
  const acknowledged = s.stack.identity.userPool.node.metadata
    .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .map((m) => m.data as Record<string, string>);
  const reason = Object.entries(Object.assign({}, ...acknowledged) as Record<string, string>).find(
    ([id]) => id.endsWith('AwsSolutions-COG2'),
  )?.[1];
  expect(reason).toContain(
    'compromised credentials are blocked at sign-in, password change and sign-up; account ' +
      'takeover risk low is allowed, medium gets an MFA challenge if the user has TOTP (allowed ' +
      'otherwise), high is blocked; no notification e-mails.',
  );
  // The earlier wording promised a challenge for every risky sign-in of enrolled users.
  expect(reason).not.toMatch(/challenges risky sign-ins/);
});
