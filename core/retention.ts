/**
 * How long each store of a stage keeps what it holds: one place for every figure, which the stack
 * (lib/), the local rig (local/) and docs/security.md's table of stores use
 * (test/infra/checks/docs-figures.ts holds the docs equal). Plain numbers: the local tools read them
 * without loading aws-cdk-lib.
 */

/**
 * Who read or changed which record, and who fetched which file: five years (SPEC 8). The log
 * groups (audit events, API access log, the workflow's events), the S3 server access logs and
 * the import reports all keep this long.
 */
export const AUDIT_RETENTION_DAYS = 1827;

/**
 * The import drop. An uploaded file and the work files made from it are copies of customers'
 * personal data (identity documents among them) that the table already holds once imported:
 * 30 days leaves time to look into a rejected or failed import, and no longer. Reports hold no
 * field of a record beyond file keys (counts, line numbers, reasons): kept as the audit trail.
 */
export const IMPORT_RETENTION = {
  filesDays: 30,
  reportsDays: AUDIT_RETENTION_DAYS,
  /** Earlier versions of a key (an upload replaced by another), gone sooner. */
  noncurrentDays: 7,
} as const;

/**
 * The files bucket (signatures, attachments, ID photos). Current objects stay as long as records
 * name them. A replaced or deleted object's earlier version stays 35 days, as long as the table's
 * point-in-time recovery reaches back: a table restored to any instant it allows still finds the
 * files its records named then. After that the version, and then its delete marker, are gone.
 */
export const FILES_RETENTION = {
  noncurrentDays: 35,
} as const;

/** An upload in parts that never completed (a killed command): its parts are billed until then. */
export const INCOMPLETE_UPLOAD_DAYS = 1;

/**
 * How late an import may still write after its file was put (SPEC 6: the file put later wins): S3
 * retries delivering the upload's event to EventBridge for up to 24 hours, EventBridge retries
 * starting the workflow for up to 24 hours more, the workflow runs at most 12 hours
 * (import/steps/step.ts), and Step Functions redrives an execution up to 14 days after it ended:
 * 16.5 days, rounded up. A write later than this is refused and its import fails, saying so.
 */
export const IMPORT_WRITE_HORIZON_DAYS = 17;

/**
 * How long a deletion's tombstone is kept after its file was put: every earlier import's horizon
 * (above), and a day for writes still in flight at that instant. DynamoDB's TTL then removes it,
 * up to about two days later (an expired tombstone still refuses older writes until then).
 */
export const TOMBSTONE_DAYS = IMPORT_WRITE_HORIZON_DAYS + 1;
