/**
 * The API contract as a validator: a response (status, headers, body) is checked against the
 * operation of openapi.yaml that its method and path select, by Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1) and nothing hand-written: the response object for the status, each of
 * its headers (required ones present, values of the header's schema), the Content-Type among the
 * response's media types, and the body against that media type's schema.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { OPENAPI_FILE } from '../../local/gateway/gateway.ts';

type Json = Record<string, unknown>;

export interface OpenApiDocument extends Json {
  openapi: string;
  paths: Record<string, Record<string, Json>>;
  components: Json & { schemas: Record<string, Json> };
}

export function loadOpenApi(file = OPENAPI_FILE): OpenApiDocument {
  return parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** What a test saw: `headers` as fetch gives them, or a plain object (any case of names). */
export interface ObservedResponse {
  status: number;
  headers: Headers | Record<string, string | undefined>;
  body: string;
}

const SCHEMAS_ID = 'urn:openapi:components';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// ajv-formats is CommonJS whose default export is the plugin function.
const require = createRequire(import.meta.url);
const addFormats = require('ajv-formats') as (ajv: Ajv2020) => Ajv2020;

/** Rewrites `#/components/schemas/X` so the schemas resolve inside one registered schema. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `${SCHEMAS_ID}#/$defs/${v.slice('#/components/schemas/'.length)}`
        : rewriteRefs(v),
    ]),
  );
}

const normalizeMediaType = (value: string) =>
  value
    .split(';')
    .map((part) => part.trim().toLowerCase())
    .join('; ');

function headerMap(headers: ObservedResponse['headers']): Map<string, string> {
  const map = new Map<string, string>();
  if (headers instanceof Headers) headers.forEach((value, name) => map.set(name, value));
  else
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) map.set(name.toLowerCase(), value);
  return map;
}

export interface Contract {
  readonly document: OpenApiDocument;
  /** Every way the response breaks the contract; empty when it conforms. */
  validate(method: string, path: string, response: ObservedResponse): string[];
  /** How many responses were validated (to show that a test did not pass vacuously). */
  readonly validated: number;
}

export function createContract(document: OpenApiDocument = loadOpenApi()): Contract {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  addFormats(ajv);
  // Header values are strings on the wire; their schemas say what the string must read as.
  const headerAjv = new Ajv2020({ allErrors: true, strict: true, coerceTypes: true });
  addFormats(headerAjv);
  ajv.addSchema({ $id: SCHEMAS_ID, $defs: rewriteRefs(document.components.schemas) as Json });

  const resolve = (value: unknown): Json => {
    let node = value as Json;
    for (let hops = 0; typeof node.$ref === 'string'; hops += 1) {
      const ref = node.$ref;
      if (!ref.startsWith('#/') || hops > 10) throw new Error(`Cannot resolve ${ref}`);
      node = ref
        .slice(2)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<Json>((at, key) => at[key] as Json, document);
      if (node === undefined) throw new Error(`${ref} is not in the document`);
    }
    return node;
  };

  const routes = Object.entries(document.paths).map(([template, item]) => ({
    template,
    item,
    pattern: new RegExp(
      `^${template
        .split(/(\{[^}]+\})/)
        .map((part) =>
          part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('')}$`,
    ),
  }));

  const compiled = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: unknown, forHeader = false): ValidateFunction => {
    let validator = compiled.get(key);
    if (!validator) {
      validator = (forHeader ? headerAjv : ajv).compile(rewriteRefs(schema) as Json);
      compiled.set(key, validator);
    }
    return validator;
  };
  const describe = (validator: ValidateFunction, where: string): string[] =>
    (validator.errors ?? []).map(
      (e) => `${where}${e.instancePath || ''}: ${e.message ?? e.keyword} (${e.schemaPath})`,
    );

  let validated = 0;

  return {
    document,
    get validated() {
      return validated;
    },
    validate(method, path, response) {
      validated += 1;
      const rawPath = path.split('?')[0]!;
      const route = routes.find((r) => r.pattern.test(rawPath));
      if (!route) return [`${path}: no path of the document matches`];
      const verb = method.toLowerCase();
      if (!METHODS.includes(verb) || !route.item[verb])
        return [`${method} ${route.template}: no such operation`];
      const operation = route.item[verb] as Json;
      const responses = operation.responses as Record<string, unknown>;
      const status = String(response.status);
      const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
      if (!declared) return [`${method} ${route.template}: status ${status} is not documented`];
      const spec = resolve(declared);
      const where = `${method} ${route.template} ${status}`;
      const problems: string[] = [];

      const headers = headerMap(response.headers);
      for (const [name, headerSpec] of Object.entries((spec.headers ?? {}) as Json)) {
        if (name.toLowerCase() === 'content-type') continue; // ignored by OpenAPI; see content
        const header = resolve(headerSpec);
        const value = headers.get(name.toLowerCase());
        if (value === undefined) {
          if (header.required === true) problems.push(`${where}: header ${name} is missing`);
          continue;
        }
        const holder = { value };
        const validator = compile(
          `${where} header ${name}`,
          {
            type: 'object',
            properties: { value: header.schema },
          },
          true,
        );
        if (!validator(holder))
          problems.push(
            ...describe(validator, `${where}: header ${name} ${JSON.stringify(value)}`),
          );
      }

      const content = (spec.content ?? {}) as Record<string, Json>;
      const contentType = headers.get('content-type');
      const mediaTypes = Object.keys(content);
      if (mediaTypes.length === 0) {
        if (response.body !== '') problems.push(`${where}: a body where none is documented`);
        return problems;
      }
      const mediaType = mediaTypes.find(
        (m) =>
          contentType !== undefined && normalizeMediaType(m) === normalizeMediaType(contentType),
      );
      if (!mediaType) {
        problems.push(
          `${where}: Content-Type ${JSON.stringify(contentType)} is none of ${JSON.stringify(mediaTypes)}`,
        );
        return problems;
      }
      let body: unknown;
      try {
        body = JSON.parse(response.body);
      } catch {
        problems.push(`${where}: the body is not JSON`);
        return problems;
      }
      const validator = compile(`${where} ${mediaType}`, content[mediaType]!.schema);
      if (!validator(body)) problems.push(...describe(validator, `${where}: body`));
      return problems;
    },
  };
}

/** Fetches `path` and returns what the contract needs, plus the parsed body. */
export async function observe(
  url: string,
  init: RequestInit = {},
): Promise<ObservedResponse & { headers: Headers; json: unknown }> {
  const res = await fetch(url, init);
  const body = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, body, json };
}
