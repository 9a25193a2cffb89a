/**
 * Records in the form the API returns them (file keys presigned) and handler results as
 * observed responses, for the contract-*.test.ts files, which check them against openapi.yaml.
 */
import { createPresigner, type Presign } from '../../functions/shared/presigner.ts';
import type { ApiResult } from '../../functions/shared/http.ts';
import type { ObservedResponse } from './contract.ts';
import { useTestCredentials } from './credentials.ts';

export type Entity = 'transaction' | 'customer';
export const FILE_FIELDS: Record<Entity, string[]> = {
  transaction: ['signature', 'attachment'],
  customer: ['id_photo'],
};
export const PATH: Record<Entity, string> = {
  transaction: '/transactions/1',
  customer: '/customers/1',
};

let presign: Presign;

/** Fixed test credentials for the file, and the presigner apiForm uses, made once they are set. */
export function useApiForm(): void {
  useTestCredentials();
  // Made once the test credentials are in the environment: a presigner reads them at creation.
  beforeAll(() => {
    presign = createPresigner({
      region: 'us-east-1',
      bucketName: 'files',
      ttlSeconds: 300,
      endpoint: 'http://127.0.0.1:4569',
    });
  });
}

/** An import-form record as the API returns it: file keys presigned. */
export async function apiForm(entity: Entity, record: Record<string, unknown>) {
  const out = { ...record };
  for (const field of FILE_FIELDS[entity])
    if (typeof out[field] === 'string') out[field] = await presign(out[field] as string);
  return out;
}

export const asObserved = (result: ApiResult): ObservedResponse => ({
  status: result.statusCode,
  headers: result.headers,
  body: result.body,
});
