/**
 * The names of the bundles that are not deployed (bench/bundles.ts builds them), apart from the
 * builder so that the report can tell them from the deployed ones without loading esbuild.
 */

/** The reference: only DynamoDBDocumentClient and one QueryCommand (bench/reference.ts). */
export const REFERENCE = 'Reference';
/**
 * The warm reference: the same client's raw GetItem and raw access-state UpdateItem, sent together
 * (bench/reference-read.ts); a bundle apart so that `Reference` stays the cold-start floor.
 */
export const REFERENCE_READ = 'ReferenceRead';
/** The variants that are measured for comparison, not deployed. */
export const WITH_SOURCE_MAPS = 'Transactions+maps';
export const CDK_DEFAULT = 'CdkDefault';

export const isDeployed = (name: string) =>
  ![REFERENCE, REFERENCE_READ, WITH_SOURCE_MAPS, CDK_DEFAULT].includes(name);
