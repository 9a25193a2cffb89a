/**
 * What a function builds once per execution environment, at init: configuration (a missing
 * variable fails here, loudly), the DynamoDB client, the presigner and the time formatter.
 */
import { loadConfig } from './config';
import { createPresigner } from './presigner';
import { createTableClient } from './table';
import { createTimeCodec } from './times';

const config = loadConfig(process.env);

export const runtime = {
  config,
  client: createTableClient({ region: config.region, endpoint: config.dynamoDbEndpoint }),
  presign: createPresigner({
    region: config.region,
    bucketName: config.bucketName,
    ttlSeconds: config.signatureUrlTtlSeconds,
    endpoint: config.s3Endpoint,
  }),
  times: createTimeCodec(config.displayTimeZone),
};
