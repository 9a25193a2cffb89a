/**
 * The records of SPEC 3 as they are imported and stored: the API shape, except that files are
 * S3 object keys. Integers are bigint and decimals strings, so nothing passes through a float.
 */
import {
  arrayById,
  decimal,
  integer,
  nullable,
  object,
  string,
  type Check,
  type ObjectCheck,
} from './schema.ts';
import { fileKey } from './file-keys.ts';
import { MAX_ID } from './ids.ts';
import { STORED_TIME, WALL_TIME_FORMAT, wallTimeProblem, type TimeCodec } from './times.ts';

/** A stored record that does not have the shape of SPEC section 3: a 500, never a partial answer. */
export class CorruptRecordError extends Error {
  override readonly name = 'CorruptRecordError';
}

export interface CodedValue {
  value: bigint;
  description: string;
}

/** 0 or 1. */
export type Flag = 0n | 1n;

export interface CurrencyLine {
  id: bigint;
  currency: string;
  edit_enabled: Flag;
  delete_enabled: Flag;
  rate: string;
  exchange_amount: string;
  receive_amount: string;
  receive_profit_amount: string;
}

/** `F` is what a file field holds: an S3 key when stored, a presigned URL in the API. */
export interface Transaction<F = string | null> {
  id: bigint;
  receipt_no: bigint;
  branch: { id: bigint; name: string; address: string };
  customer: { id: bigint; first_name: string; email: string };
  purpose: CodedValue;
  type: CodedValue;
  total_amount: string;
  total_profit_amount: string;
  signature: F;
  attachment: F;
  transaction_currencies: CurrencyLine[];
  created_by: { name: string };
  created_at: string;
}

export interface RiskAssessment {
  id: bigint;
  customer_id: bigint;
  type: CodedValue;
  value: string;
  grade: bigint;
}

export interface Customer<F = string | null> {
  id: bigint;
  first_name: string;
  middle_name: string;
  last_name: string;
  email: string;
  current_address: string | null;
  permanent_address: string | null;
  tin: string | null;
  sss: string | null;
  document_type: string | null;
  id_no: string | null;
  place_of_birth: string | null;
  nationality: string | null;
  contact_number: string | null;
  id_photo: F;
  date_of_birth: string;
  assessment_score: bigint;
  assessment_risk: CodedValue;
  customer_risk_assessments: RiskAssessment[];
  last_transaction_datetime: string | null;
}

/** The most currency lines or risk assessments a record may have (and DynamoDB's item limit: core/layout.ts). */
export const MAX_CHILDREN = 1000;

const id = integer(1n, MAX_ID);
const int = integer();
const text = string();
const optionalText = nullable(text);
const email = string({
  maxLength: 320,
  pattern: /^[^\s@]+@[^\s@]+$/,
  expected: 'an e-mail address',
});
const codedValue = object({ value: int, description: text });
const flag = integer(0n, 1n);
/** Said of a time in the right format that names no day or time of the calendar (2023-02-30). */
const NOT_IN_CALENDAR =
  'is not a date and time of the calendar: no such day, or no such time of day';
const dateOfBirthFormat = string({
  pattern: /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$/,
  expected: 'an ISO 8601 UTC time with microseconds, e.g. "1990-05-14T00:00:00.000000Z"',
});
/** The format, then the calendar: 1990-02-30 (which Date would roll over) names no day. */
const dateOfBirth: Check = (value, path, problems) => {
  const before = problems.length;
  dateOfBirthFormat(value, path, problems);
  if (problems.length > before || typeof value !== 'string') return value;
  const date = new Date(`${value.slice(0, 23)}Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 19) !== value.slice(0, 19))
    problems.push({ path, reason: NOT_IN_CALENDAR });
  return value;
};

/** Times come in as wall time in the display zone on import (given its codec), and as UTC in the table. */
export function timeCheck(codec?: TimeCodec): Check {
  return codec === undefined
    ? string({ pattern: STORED_TIME, expected: 'a UTC time "YYYY-MM-DDTHH:MM:SSZ"' })
    : wallTime(codec);
}

/**
 * An imported time. Each reason says what is wrong: a value in another format (a UTC "...Z" time,
 * a missing second) is named a wrong format, with the format wanted, so that it is not read as a
 * daylight-saving problem; that one is said only of a real date and time the display zone skips.
 */
function wallTime(codec: TimeCodec): Check {
  const zone = `the display time zone (${codec.timeZone})`;
  const reasons = {
    format: `is in the wrong format: must be "${WALL_TIME_FORMAT}", the wall time in ${zone}, e.g. "2023-09-15 10:01:02"`,
    calendar: NOT_IN_CALENDAR,
    skipped: `does not exist in ${zone}: its clocks skip it (a daylight-saving change)`,
  };
  return (value, path, problems) => {
    // The common case first: a time the zone has.
    if (typeof value === 'string' && codec.store(value) !== undefined) return value;
    const problem = typeof value === 'string' ? wallTimeProblem(value) : 'format';
    problems.push({ path, reason: reasons[problem ?? 'skipped'] });
    return value;
  };
}

const currencyLine = object({
  id,
  currency: string({
    pattern: /^\S.* \([A-Z]{3}\)$/,
    expected: 'a name then a code, e.g. "US Dollar (USD)"',
  }),
  edit_enabled: flag,
  delete_enabled: flag,
  rate: decimal(5),
  exchange_amount: decimal(2),
  receive_amount: decimal(2),
  receive_profit_amount: decimal(),
});

export function transactionCheck(time: Check): ObjectCheck {
  return object({
    id,
    receipt_no: integer(1n, MAX_ID),
    branch: object({ id, name: text, address: text }),
    customer: object({ id, first_name: text, email }),
    purpose: codedValue,
    type: codedValue,
    total_amount: decimal(2),
    total_profit_amount: decimal(2),
    signature: fileKey('signature'),
    attachment: fileKey('attachment'),
    transaction_currencies: arrayById(currencyLine, MAX_CHILDREN),
    created_by: object({ name: text }),
    created_at: time,
  });
}

/**
 * A transaction's summary (SPEC 10) as an index holds it: the summary's fields, with the branch
 * and customer objects whole (the summary shows part of each: functions/shared/summaries.ts).
 */
export function transactionSummaryCheck(time: Check): Check {
  return object({
    id,
    receipt_no: integer(1n, MAX_ID),
    created_at: time,
    branch: object({ id, name: text, address: text }),
    customer: object({ id, first_name: text, email }),
    type: codedValue,
    total_amount: decimal(2),
  });
}

/** A customer's summary (SPEC 10) as an index holds it. */
export function customerSummaryCheck(time: Check): Check {
  return object({
    id,
    first_name: text,
    middle_name: text,
    last_name: text,
    date_of_birth: dateOfBirth,
    assessment_risk: codedValue,
    last_transaction_datetime: nullable(time),
  });
}

const riskAssessment = object({ id, customer_id: id, type: codedValue, value: text, grade: int });

/** Each risk assessment's customer_id must be its customer's id. */
const ownedAssessments: Check = (value, path, problems) => {
  const { id: owner, customer_risk_assessments: list } = value as Partial<Customer>;
  if (typeof owner !== 'bigint' || !Array.isArray(list)) return;
  list.forEach((entry, i) => {
    const customerId = (entry as Partial<RiskAssessment> | null)?.customer_id;
    if (typeof customerId === 'bigint' && customerId !== owner)
      problems.push({
        path: `${path}.customer_risk_assessments[${i}].customer_id`,
        reason: "must equal the customer's id",
      });
  });
};

export function customerCheck(time: Check): ObjectCheck {
  return object(
    {
      id,
      first_name: text,
      middle_name: text,
      last_name: text,
      email,
      current_address: optionalText,
      permanent_address: optionalText,
      tin: optionalText,
      sss: optionalText,
      document_type: optionalText,
      id_no: optionalText,
      place_of_birth: optionalText,
      nationality: optionalText,
      contact_number: optionalText,
      id_photo: fileKey('id_photo'),
      date_of_birth: dateOfBirth,
      assessment_score: int,
      assessment_risk: codedValue,
      customer_risk_assessments: arrayById(riskAssessment, MAX_CHILDREN),
      last_transaction_datetime: nullable(time),
    },
    ownedAssessments,
  );
}
