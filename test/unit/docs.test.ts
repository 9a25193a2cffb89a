/**
 * The docs page as `npm run docs` writes it: one file that needs nothing else (Swagger UI and the
 * contract inlined, no script or style fetched), which says how to get a token.
 */
import { docsPage } from '../../local/docs';
import { OPENAPI_FILE } from '../../local/gateway';
import { loadOpenApi } from '../support/contract';

test('the published page is self-contained: UI, styles and contract inlined, nothing fetched', async () => {
  const html = await docsPage({ kind: 'published', openApiFile: OPENAPI_FILE });
  expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|fetch\('\/openapi\.json'\)/);
  expect(html).toContain('SwaggerUIBundle');
  expect(html).toContain(JSON.stringify((loadOpenApi().info as { title: string }).title));
  expect(html).toContain('AccessToken');
  // Inlined code cannot end its <script> element early.
  const scripts = html.split('<script>').slice(1);
  expect(scripts).toHaveLength(2);
  for (const script of scripts) expect(script.match(/<\/script/gi)).toHaveLength(1);
});

test('the local page loads the UI from the gateway and says how to get a demo token', async () => {
  const html = await docsPage({ kind: 'local' });
  expect(html).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
  expect(html).toContain('npm run --silent token -- teller@example.com');
  expect(html).toContain('npm run --silent token -- compliance@example.com');
});
