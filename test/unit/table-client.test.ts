import { createTableClient } from '../../functions/sdk/table-client';
import { createDocumentClient } from '../../import/document-client';

const options = { region: 'us-east-1', credentials: { accessKeyId: 'k', secretAccessKey: 's' } };

/**
 * The SDK's logger middleware masks every answer for a logger that is never set: the table
 * client removes it by name (docs/performance.md, "The warm path"). If an SDK update renamed it,
 * the removal would quietly do nothing and the warm budget would slip; this says so at once.
 */
describe('the table client', () => {
  test.each([
    ['the functions’ client', () => createTableClient(options)],
    ['the import’s Document Client', () => createDocumentClient(options)],
  ])('%s has no logger middleware, and keeps the retry and signing steps', (_name, create) => {
    const client = create();
    const steps = client.middlewareStack.identify().join('\n');
    expect(steps).not.toMatch(/loggerMiddleware/);
    expect(steps).toMatch(/retryMiddleware/);
    expect(steps).toMatch(/httpSigningMiddleware/);
    client.destroy();
  });
});
