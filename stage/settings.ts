import { EMAIL, SettingsError, type ContextSource, type Stage } from './stage.ts';
import {
  CURRENCY_RULE,
  DEFAULT_CURRENCY,
  DEFAULT_TIME_ZONE,
  isCurrency,
  URL_TTL_RULE,
  URL_TTL_SECONDS,
  isTimeZone,
  isUrlTtl,
} from '../core/settings.ts';
import {
  DEFAULT_READ_BUDGETS,
  READ_BUDGET_CONTEXT,
  ReadBudgetError,
  parseReadBudgets,
  validateReadBudgets,
  type ReadBudgets,
} from '../core/read-budgets.ts';

/**
 * Deploy-time settings. They come from CDK context (`cdk.json` or `cdk deploy -c key=value`) so
 * that one code base deploys to several stages without edits, and they are checked here, at
 * synth time, because a bad value would otherwise only show up as failing requests after deploy.
 */
export interface Settings {
  /** Lifetime of presigned file URLs in seconds, 1..3600 (SPEC 3.4). Context `signatureUrlTtlSeconds`. */
  readonly signatureUrlTtlSeconds: number;
  /** IANA zone in which times are shown (SPEC 3.5). Context `displayTimeZone`. */
  readonly displayTimeZone: string;
  /** The business's currency (core/settings.ts): the staff page shows it. Context `currency`. */
  readonly currency: string;
  /**
   * The business's name (isBusinessName): the staff page's title and the head of a printed KYC
   * record. Context `businessName`.
   */
  readonly businessName: string;
  /**
   * Browser origins allowed by CORS, e.g. `https://backoffice.example.com`. Empty (the default)
   * leaves CORS off: the API is called by servers and tools, and a browser front end must be
   * named explicitly. Context `corsAllowOrigins`: a JSON array or a comma-separated string.
   */
  readonly corsAllowOrigins: readonly string[];
  /**
   * Reads per user, route and window (SPEC 8), checked by core/read-budgets.ts, the same rules
   * the functions apply to their environment. Context `readBudgetCustomers`,
   * `readBudgetTransactions`, `readBudgetWindowSeconds`.
   */
  readonly readBudgets: ReadBudgets;
  /**
   * How many parts of an import file are checked or written at once (SPEC 9), each by one Lambda
   * function, 1..IMPORT_CONCURRENCY_MAX: it bounds the table capacity an import takes from the
   * API. Context `importConcurrency`.
   */
  readonly importConcurrency: number;
  /**
   * Whether CheckPart looks up each file key the records name and the report warns of those the
   * files bucket lacks (import/file-check.ts): one S3 listing a distinct key. On by default; a
   * backfill of millions of keys may turn it off (docs/operations.md says what it costs).
   * Context `importFileCheck`.
   */
  readonly importFileCheck: boolean;
  /**
   * The table's warm write throughput (DynamoDB warm throughput, write units a second it serves
   * at once), for a backfill: undefined leaves what on-demand gives a new table. Context
   * `tableWarmWritesPerSecond`; TABLE_WARM_WRITES says the bounds and why.
   */
  readonly tableWarmWritesPerSecond?: number;
  /**
   * What the user pool's threat protection does (lib/identity.ts): `enforced` (Cognito's
   * full-function mode: blocks and challenges as configured) or `audit` (audit-only: scores and
   * logs every sign-in, blocks nothing). Context `threatProtection`; DEFAULT_THREAT_PROTECTION
   * says why every stage starts in audit.
   */
  readonly threatProtection: ThreatProtection;
  /**
   * The CloudFront edges that serve the staff page (lib/staff-app.ts), as CloudFront names its
   * price classes. Context `priceClass`; DEFAULT_PRICE_CLASS says why the default.
   */
  readonly priceClass: PriceClassName;
  /**
   * The address Cognito's mail to staff comes from through Amazon SES (temporary passwords of
   * `npm run access -- add`, password resets), an identity verified in SES in the stage's region;
   * undefined leaves Cognito's default e-mail, whose daily limit is small
   * (docs/operations/users-and-access.md). Context `sesFromAddress`; `-c sesFromAddress=` ends it.
   */
  readonly sesFromAddress?: string;
  /**
   * The staff page on the business's own domain: its name and an ACM certificate for it in
   * us-east-1 (CloudFront takes certificates from there only). Undefined serves the page on the
   * distribution's own *.cloudfront.net name. Context `staffPageDomain` and
   * `staffPageCertificateArn`, both or neither (docs/decisions/0027).
   */
  readonly staffPageDomain?: StaffPageDomain;
}

/** The staff page's own domain (Settings.staffPageDomain). */
export interface StaffPageDomain {
  readonly name: string;
  readonly certificateArn: string;
}

/**
 * The business's name: the staff page's title, and the head of a printed KYC record. One rule for
 * a stage's `-c businessName=` and the local rig's BUSINESS_NAME (local/rig/start-settings.ts):
 * a name a printed record carries on one line.
 */
export const DEFAULT_BUSINESS_NAME = 'Currency Exchange';
export const BUSINESS_NAME_MAX_CHARS = 100;
export const BUSINESS_NAME_RULE = `a name of 1 to ${BUSINESS_NAME_MAX_CHARS} characters on one line, not starting or ending with a space`;

export function isBusinessName(name: string): boolean {
  const chars = [...name].length;
  return (
    chars >= 1 &&
    chars <= BUSINESS_NAME_MAX_CHARS &&
    name.trim() === name &&
    // No line break or other control character: it is printed as one line.
    !/[\p{Cc}\p{Zl}\p{Zp}]/u.test(name)
  );
}

export const THREAT_PROTECTION_MODES = ['audit', 'enforced'] as const;
export type ThreatProtection = (typeof THREAT_PROTECTION_MODES)[number];

/**
 * Every stage's first deploy audits: AWS advises two weeks or more of audit-only mode before
 * full-function mode (Cognito Developer Guide, "Threat protection"), and no stage has run yet.
 * Enforcing is one setting, `-c threatProtection=enforced`, which the stage then keeps
 * (stage/deployed-settings.ts); decision 10 says when and what to look at first. A disposable
 * stage stays in audit: CI runners' ever-changing addresses would score as unfamiliar.
 */
export const DEFAULT_THREAT_PROTECTION: ThreatProtection = 'audit';

function isThreatProtection(value: unknown): value is ThreatProtection {
  return (THREAT_PROTECTION_MODES as readonly unknown[]).includes(value);
}

const THREAT_PROTECTION_RULE = THREAT_PROTECTION_MODES.join(' or ');

/** CloudFront's price classes, by the names CloudFormation and the CLI use. */
export const PRICE_CLASSES = ['PriceClass_100', 'PriceClass_200', 'PriceClass_All'] as const;
export type PriceClassName = (typeof PRICE_CLASSES)[number];

/**
 * Price class 200 has edges in the Philippines, where the staff work; 100 has none in Asia, so
 * Manila would be served from another continent. Edges there cost more per GB (Amazon
 * CloudFront pricing), which a page of a few small files hardly feels. `PriceClass_All` adds
 * South America, Australia and New Zealand.
 */
export const DEFAULT_PRICE_CLASS: PriceClassName = 'PriceClass_200';

const PRICE_CLASS_RULE = PRICE_CLASSES.join(', ');

/** A host name such as staff.example.com: lower-case labels of letters, digits and hyphens. */
const HOST_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const STAFF_PAGE_DOMAIN_RULE =
  'a lower-case host name such as staff.example.com, not under cloudfront.net';
/**
 * An ACM certificate in us-east-1: CloudFront uses certificates from that region only (Amazon
 * CloudFront Developer Guide, "Requirements for using SSL/TLS certificates with CloudFront").
 */
const CLOUDFRONT_CERTIFICATE_ARN =
  /^arn:aws:acm:us-east-1:[0-9]{12}:certificate\/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$/;
const CERTIFICATE_RULE =
  'the ARN of an ACM certificate in us-east-1 (arn:aws:acm:us-east-1:<account>:certificate/<id>)';

/** An optional text setting from context: absent or empty is none (`-c key=` ends a kept one). */
function optionalText(value: unknown): string | undefined {
  return value === undefined || value === null || value === '' ? undefined : String(value);
}

/**
 * The default concurrency, and the most allowed: a new on-demand table takes about 4,000 writes
 * a second at first, and each worker can write a few hundred records a second (several writes
 * each, docs/performance.md), so 10 workers stay within it; 1,000 is far past what a table
 * warmed up for it would take, and almost surely a slipped digit.
 */
export const IMPORT_CONCURRENCY = { default: 10, max: 1000 } as const;

/**
 * Warm write throughput a stage may ask for: at least what a new on-demand table already has
 * (4,000 write units a second), at most the default per-table on-demand quota (40,000; raise the
 * quota first for more). Raising it is charged once, and it cannot be lowered again: DynamoDB
 * keeps a table's warm throughput once reached (docs/operations.md).
 */
export const TABLE_WARM_WRITES = { min: 4000, max: 40_000 } as const;

/** A warm-throughput setting's value from context or props: undefined, or in its bounds. */
function warmSetting(
  name: string,
  bounds: { min: number; max: number },
  value: unknown,
): number | undefined {
  if (value === undefined) return undefined;
  const number =
    typeof value === 'number' || /^[1-9][0-9]*$/.test(String(value)) ? Number(value) : Number.NaN;
  if (!(Number.isSafeInteger(number) && number >= bounds.min && number <= bounds.max))
    throw new SettingsError(
      `${name} must be a whole number from ${bounds.min} to ${bounds.max}, got: ${JSON.stringify(value)}`,
    );
  return number;
}

export const DEFAULT_SETTINGS: Settings = {
  signatureUrlTtlSeconds: URL_TTL_SECONDS.default,
  displayTimeZone: DEFAULT_TIME_ZONE,
  currency: DEFAULT_CURRENCY,
  businessName: DEFAULT_BUSINESS_NAME,
  corsAllowOrigins: [],
  readBudgets: DEFAULT_READ_BUDGETS,
  importConcurrency: IMPORT_CONCURRENCY.default,
  importFileCheck: true,
  threatProtection: DEFAULT_THREAT_PROTECTION,
  priceClass: DEFAULT_PRICE_CLASS,
};

export { SettingsError };

/** Checks settings given as props, with the rules the functions apply at start-up (core/settings.ts). */
export function validateSettings(settings: Settings): Settings {
  if (!isUrlTtl(settings.signatureUrlTtlSeconds)) {
    throw new SettingsError(`signatureUrlTtlSeconds must be ${URL_TTL_RULE}`);
  }
  if (!isTimeZone(settings.displayTimeZone)) {
    throw new SettingsError(
      `displayTimeZone is not an IANA time zone: ${settings.displayTimeZone}`,
    );
  }
  if (!isCurrency(settings.currency))
    throw new SettingsError(
      `currency must be ${CURRENCY_RULE}, got: ${JSON.stringify(settings.currency)}`,
    );
  if (typeof settings.businessName !== 'string' || !isBusinessName(settings.businessName))
    throw new SettingsError(
      `businessName must be ${BUSINESS_NAME_RULE}, got: ${JSON.stringify(settings.businessName)}`,
    );
  for (const origin of settings.corsAllowOrigins) {
    // An exact scheme://host[:port] only: a wildcard or a path would widen or break the allowlist.
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (
      !parsed ||
      origin.includes('*') ||
      !/^https?:$/.test(parsed.protocol) ||
      parsed.origin !== origin
    ) {
      throw new SettingsError(
        `corsAllowOrigins entries must be exact origins like https://app.example.com, got: ${origin}`,
      );
    }
  }
  const concurrency = settings.importConcurrency;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > IMPORT_CONCURRENCY.max)
    throw new SettingsError(
      `importConcurrency must be a whole number from 1 to ${IMPORT_CONCURRENCY.max}, got: ${String(concurrency)}`,
    );
  if (typeof settings.importFileCheck !== 'boolean')
    throw new SettingsError(`importFileCheck must be true or false`);
  warmSetting('tableWarmWritesPerSecond', TABLE_WARM_WRITES, settings.tableWarmWritesPerSecond);
  if (!isThreatProtection(settings.threatProtection))
    throw new SettingsError(
      `threatProtection must be ${THREAT_PROTECTION_RULE}, got: ${JSON.stringify(settings.threatProtection)}`,
    );
  if (!(PRICE_CLASSES as readonly unknown[]).includes(settings.priceClass))
    throw new SettingsError(
      `priceClass must be ${PRICE_CLASS_RULE}, got: ${JSON.stringify(settings.priceClass)}`,
    );
  if (settings.sesFromAddress !== undefined && !EMAIL.test(settings.sesFromAddress))
    throw new SettingsError(
      `sesFromAddress must be an e-mail address verified in SES, got: ${JSON.stringify(settings.sesFromAddress)}`,
    );
  const domain = settings.staffPageDomain;
  if (domain !== undefined) {
    if (!HOST_NAME.test(domain.name) || /(?:^|\.)cloudfront\.net$/.test(domain.name))
      throw new SettingsError(
        `staffPageDomain must be ${STAFF_PAGE_DOMAIN_RULE}, got: ${JSON.stringify(domain.name)}`,
      );
    if (!CLOUDFRONT_CERTIFICATE_ARN.test(domain.certificateArn))
      throw new SettingsError(
        `staffPageCertificateArn must be ${CERTIFICATE_RULE}, got: ${JSON.stringify(domain.certificateArn)}`,
      );
  }
  try {
    validateReadBudgets(settings.readBudgets);
  } catch (error) {
    if (error instanceof ReadBudgetError) throw new SettingsError(`readBudgets: ${error.message}`);
    throw error;
  }
  return settings;
}

function list(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  if (Array.isArray(raw)) return raw.map(String);
  const text = String(raw).trim();
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed))
      throw new SettingsError(
        `corsAllowOrigins must be a JSON array of origins or a comma-separated list, got: ${text}`,
      );
    return parsed.map(String);
  }
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Reads the settings from CDK context, falling back to the defaults. */
export function settingsFromContext(node: ContextSource): Settings {
  const ttl = node.tryGetContext('signatureUrlTtlSeconds') as unknown;
  const zone = node.tryGetContext('displayTimeZone') as unknown;
  const currency = node.tryGetContext('currency') as unknown;
  const businessName = node.tryGetContext('businessName') as unknown;
  let readBudgets: ReadBudgets;
  try {
    readBudgets = parseReadBudgets({
      customers: node.tryGetContext(READ_BUDGET_CONTEXT.customers),
      transactions: node.tryGetContext(READ_BUDGET_CONTEXT.transactions),
      windowSeconds: node.tryGetContext(READ_BUDGET_CONTEXT.windowSeconds),
    });
  } catch (error) {
    if (error instanceof ReadBudgetError) throw new SettingsError(error.message);
    throw error;
  }
  const concurrency = node.tryGetContext('importConcurrency') as unknown;
  if (
    concurrency !== undefined &&
    !(typeof concurrency === 'number' || /^[1-9][0-9]*$/.test(String(concurrency)))
  )
    throw new SettingsError(
      `importConcurrency must be a whole number from 1 to ${IMPORT_CONCURRENCY.max}, got: ${JSON.stringify(concurrency)}`,
    );
  const fileCheck = node.tryGetContext('importFileCheck') as unknown;
  if (![undefined, true, false, 'true', 'false'].includes(fileCheck as never))
    throw new SettingsError(
      `importFileCheck must be true or false, got: ${JSON.stringify(fileCheck)}`,
    );
  const threatProtection = node.tryGetContext('threatProtection') as unknown;
  const priceClass = node.tryGetContext('priceClass') as unknown;
  const sesFromAddress = optionalText(node.tryGetContext('sesFromAddress'));
  const domainName = optionalText(node.tryGetContext('staffPageDomain'));
  const certificateArn = optionalText(node.tryGetContext('staffPageCertificateArn'));
  // Both or neither: CloudFront serves a domain only with a certificate for it, and a
  // certificate alone names no domain.
  if ((domainName === undefined) !== (certificateArn === undefined))
    throw new SettingsError(
      'staffPageDomain and staffPageCertificateArn go together: give both, or neither',
    );
  const writes = warmSetting(
    'tableWarmWritesPerSecond',
    TABLE_WARM_WRITES,
    node.tryGetContext('tableWarmWritesPerSecond'),
  );
  return validateSettings({
    ...(writes === undefined ? {} : { tableWarmWritesPerSecond: writes }),
    ...(sesFromAddress === undefined ? {} : { sesFromAddress }),
    ...(domainName === undefined || certificateArn === undefined
      ? {}
      : { staffPageDomain: { name: domainName, certificateArn } }),
    threatProtection:
      threatProtection === undefined
        ? DEFAULT_THREAT_PROTECTION
        : (threatProtection as ThreatProtection),
    priceClass: priceClass === undefined ? DEFAULT_PRICE_CLASS : (priceClass as PriceClassName),
    importConcurrency: concurrency === undefined ? IMPORT_CONCURRENCY.default : Number(concurrency),
    importFileCheck: fileCheck === undefined || fileCheck === true || fileCheck === 'true',
    signatureUrlTtlSeconds:
      ttl === undefined ? DEFAULT_SETTINGS.signatureUrlTtlSeconds : Number(ttl),
    displayTimeZone: zone === undefined ? DEFAULT_SETTINGS.displayTimeZone : String(zone),
    currency: currency === undefined ? DEFAULT_SETTINGS.currency : String(currency),
    businessName: businessName === undefined ? DEFAULT_SETTINGS.businessName : String(businessName),
    corsAllowOrigins: list(node.tryGetContext('corsAllowOrigins')),
    readBudgets,
  });
}

/**
 * The context values that give `settings` back through settingsFromContext, and the stage's own
 * (stage/stage.ts): what a stage keeps of how it was deployed (stage/deployed-settings.ts). The alarm
 * e-mail itself is not kept (a stack output is read by anyone who may describe the stack, and
 * printed by every deploy): only that there is one, so that a deploy without it is refused
 * rather than silently dropping the subscription.
 */
export function settingsToContext(
  settings: Settings,
  stage: Pick<Stage, 'disposable' | 'alarmEmail'>,
): Record<string, unknown> {
  return {
    signatureUrlTtlSeconds: settings.signatureUrlTtlSeconds,
    displayTimeZone: settings.displayTimeZone,
    currency: settings.currency,
    businessName: settings.businessName,
    corsAllowOrigins: [...settings.corsAllowOrigins],
    [READ_BUDGET_CONTEXT.customers]: settings.readBudgets.customers,
    [READ_BUDGET_CONTEXT.transactions]: settings.readBudgets.transactions,
    [READ_BUDGET_CONTEXT.windowSeconds]: settings.readBudgets.windowSeconds,
    importConcurrency: settings.importConcurrency,
    importFileCheck: settings.importFileCheck,
    threatProtection: settings.threatProtection,
    priceClass: settings.priceClass,
    ...(settings.sesFromAddress === undefined ? {} : { sesFromAddress: settings.sesFromAddress }),
    ...(settings.staffPageDomain === undefined
      ? {}
      : {
          staffPageDomain: settings.staffPageDomain.name,
          staffPageCertificateArn: settings.staffPageDomain.certificateArn,
        }),
    ...(settings.tableWarmWritesPerSecond === undefined
      ? {}
      : { tableWarmWritesPerSecond: settings.tableWarmWritesPerSecond }),
    disposable: stage.disposable,
    [ALARM_EMAIL_SET]: stage.alarmEmail !== undefined,
  };
}

/** Kept instead of the alarm e-mail: whether the stage has one (settingsToContext). */
export const ALARM_EMAIL_SET = 'alarmEmailSet';
