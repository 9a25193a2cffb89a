/**
 * The DynamoDB client the functions read with, and the import's Document Client wraps
 * (functions/shared/document-client.ts), with the request path trimmed (./README.md).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { environmentSettings } from './environment-settings.ts';
import { Sha256 } from './sha256.ts';
import { streamCollector } from './stream-collector.ts';

export interface ClientOptions {
  region: string;
  endpoint?: string | undefined;
  /** Attempts in all, first try included; with the timeout it bounds a GET's time. */
  maxAttempts?: number;
  /** Per-attempt time limit, ms. */
  requestTimeoutMs?: number;
  /** Only for emulators; in AWS the SDK's default chain finds the credentials. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** The functions: SDK settings from the environment, never the shared config files. */
  environmentOnly?: boolean;
}

/**
 * One client per process: the functions read with it, and the import's Document Client wraps it
 * (functions/shared/document-client.ts). Two settings spare each request work done for nothing
 * (docs/performance.md, "The warm path"): the SDK's logger middleware is removed, which masks
 * every answer, attribute by attribute, for a logger that is never set (a cost that grows with a
 * transaction's lines); and the middleware stack is resolved once, not on each send
 * (`cacheMiddleware`: nothing changes the stack after the first request; the Document Client,
 * which adds middleware per command, turns it off).
 */
export function createTableClient(options: ClientOptions, cacheMiddleware = true): DynamoDBClient {
  const client = new DynamoDBClient({
    region: options.region,
    endpoint: options.endpoint,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 3,
    // Request signing's hashes without Node.js 24's slow Buffer-keyed HMAC (see sha256.ts).
    sha256: Sha256,
    // Without throwOnRequestTimeout the SDK only warns on a timeout and waits on.
    requestHandler: {
      connectionTimeout: options.requestTimeoutMs ?? 1000,
      requestTimeout: options.requestTimeoutMs ?? 1000,
      throwOnRequestTimeout: true,
    },
    cacheMiddleware,
    // Answers read without loading web streams (see stream-collector.ts).
    streamCollector,
    ...(options.environmentOnly ? environmentSettings() : {}),
  });
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
