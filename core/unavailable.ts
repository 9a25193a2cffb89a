/**
 * Which DynamoDB failures are worth trying again: the functions answer them with a 503 (SPEC 4),
 * the import retries them with back-off.
 */
const RETRYABLE_NAMES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
]);

const PROGRAMMING_ERRORS = new Set(['SyntaxError', 'TypeError', 'RangeError', 'ReferenceError']);

/**
 * Throttling, a DynamoDB-side failure, or no answer at all (an SDK error without an HTTP status
 * is a transport failure: refused, reset, timed out): worth a retry later, so a 503.
 */
export function isUnavailable(error: unknown): boolean {
  // Not `instanceof Error`: errors raised by Node's own modules can come from another realm.
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return (
    (e.name !== undefined && RETRYABLE_NAMES.has(e.name)) ||
    (e.code !== undefined && RETRYABLE_NAMES.has(e.code)) ||
    // The SDK attaches $metadata to whatever its middleware throws; a JS error there is a bug.
    (e.$metadata !== undefined && status === undefined && !PROGRAMMING_ERRORS.has(e.name ?? '')) ||
    (status !== undefined && status >= 500)
  );
}
