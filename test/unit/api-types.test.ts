/**
 * The typed client's types (client/openapi-types.ts, generated from openapi.yaml by
 * `npm run types`) are up to date, and equal the handlers' own record types: the assertions
 * below are checked by `npm run lint` (tsc), so a field added, dropped, renamed or retyped on
 * one side only fails the build. The handlers carry integers as bigint (exact JSON, SPEC 3);
 * AsJson maps them to the numbers a client parses, so what is compared is the JSON on the wire.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import type { AsJson } from '../../core/json.ts';
import type {
  CodedValue,
  CurrencyLine,
  Customer,
  RiskAssessment,
  Transaction,
} from '../../core/records.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { OPENAPI_FILE } from '../../local/gateway/gateway.ts';
import type { components } from '../../client/openapi-types.ts';

const TYPES_FILE = join(PROJECT_ROOT, 'client/openapi-types.ts');

/** True when each of A and B is assignable to the other (fields, optionality, nullability). */
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type Schemas = components['schemas'];

// What the handlers return (files as presigned URLs or null) is what the contract describes.
export type RecordTypesAgree = [
  Assert<Equal<AsJson<CodedValue>, Schemas['CodedValue']>>,
  Assert<Equal<AsJson<CurrencyLine>, Schemas['CurrencyLine']>>,
  Assert<Equal<AsJson<RiskAssessment>, Schemas['RiskAssessment']>>,
  Assert<Equal<AsJson<Transaction>, Schemas['Transaction']>>,
  Assert<Equal<AsJson<Customer>, Schemas['Customer']>>,
];
// And the comparison is not vacuous: a record with one field retyped does not pass.
export type NotVacuous = [
  Assert<Equal<Equal<AsJson<Transaction> & { id: string }, Schemas['Transaction']>, false>>,
  Assert<Equal<Equal<Omit<AsJson<Customer>, 'tin'>, Schemas['Customer']>, false>>,
  Assert<
    Equal<
      Equal<
        AsJson<Omit<CurrencyLine, 'edit_enabled'> & { edit_enabled: bigint }>,
        Schemas['CurrencyLine']
      >,
      false
    >
  >,
];

test('client/openapi-types.ts is what openapi-typescript makes of openapi.yaml (else: npm run types)', async () => {
  const fresh = `${COMMENT_HEADER}${astToString(await openapiTS(pathToFileURL(OPENAPI_FILE)))}`;
  expect(readFileSync(TYPES_FILE, 'utf8')).toBe(fresh);
});
