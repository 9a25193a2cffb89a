/**
 * The names of the bundles that are not deployed (bench/bundles.ts builds them), apart from the
 * builder so that the report can tell them from the deployed ones without loading esbuild.
 */

/** The reference: only DynamoDBDocumentClient and one QueryCommand (bench/reference.ts). */
export const REFERENCE = 'Reference';
/** The variants that are measured for comparison, not deployed. */
export const WITH_SOURCE_MAPS = 'GetTransaction+maps';
export const CDK_DEFAULT = 'CdkDefault';

export const isDeployed = (name: string) =>
  ![REFERENCE, WITH_SOURCE_MAPS, CDK_DEFAULT].includes(name);
