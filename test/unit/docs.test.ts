/**
 * The docs page as `npm run docs` writes it: one file that needs nothing else (Swagger UI and the
 * contract inlined, no script or style fetched), which says how to get a token.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docsPage } from '../../local/gateway/docs-page.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { OPENAPI_FILE } from '../../local/gateway/gateway.ts';
import { PORT_VARIABLES } from '../../local/rig/start-settings.ts';
import { loadOpenApi } from '../support/contract.ts';

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

/**
 * Issue 17: the page's introduction (openapi.yaml `info.description`, shown at the top of the
 * page) is for callers: the envelope, authentication, SPEC 4's errors and SPEC 8's limits. How
 * the contract is tuned for the tools belongs in docs/api.md.
 */
test("the page's introduction tells a caller the envelope, authentication, errors and limits, and nothing of the tools", async () => {
  const html = await docsPage({ kind: 'published', openApiFile: OPENAPI_FILE });
  const intro = (loadOpenApi().info as { description: string }).description;
  // The page carries this very text.
  expect(html).toContain(JSON.stringify(intro).replace(/</g, '\\u003c'));
  const prose = intro.replace(/\s+/g, ' ');
  for (const said of [
    '**Envelope.**',
    '`{ "message", "data" }`',
    '**Authentication.**',
    'Cognito **access token**',
    '`Authorization: Bearer <token>`',
    '`customer-readers`',
    '**Errors.**',
    '**Limits.**',
    '60 customer reads and 300 transaction reads per 5 minutes',
    '50 requests a second',
  ])
    expect([said, prose.includes(said)]).toEqual([said, true]);
  // Every status of SPEC 4, each with what the caller gets.
  for (const status of ['400', '401', '403', '404', '429', '500', '503'])
    expect(prose).toMatch(new RegExp(`- \`${status}\` [^-]{20,}`));
  expect(prose).toMatch(/`429` .*Retry-After/);
  expect(prose).toMatch(/`503` .*Retry-After/);
  expect(intro).not.toMatch(/Ajv|Redocly|Prism|openapi-typescript|sibling keywords/);
  // ... which docs/api.md tells the maintainers instead.
  const api = readFileSync(join(PROJECT_ROOT, 'docs/api.md'), 'utf8').replace(/\s+/g, ' ');
  expect(api).toMatch(/Ajv.*Redocly.*Prism.*openapi-typescript/);
  expect(api).toContain('no `$ref` with sibling keywords');
});

/**
 * Issue 24 item 5: a reader of the README alone can move every port `npm start` takes. The
 * variables are found in local/'s sources, so a new one fails here until the README names it.
 */
test('the README names each port variable local/ reads, and the walk-through follows PORT', () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const local = join(PROJECT_ROOT, 'local');
  const read = new Set(
    readdirSync(local, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => [
        ...readFileSync(join(local, file), 'utf8').matchAll(/\b((?:[A-Z][A-Z0-9_]*_)?PORT)\b/g),
      ])
      .map((match) => match[1]!),
  );
  expect([...read].sort()).toEqual(expect.arrayContaining(Object.keys(PORT_VARIABLES).sort()));
  const ports = readme.slice(readme.indexOf('\n## Ports\n'));
  expect(ports.startsWith('\n## Ports\n')).toBe(true);
  for (const name of read) expect([name, ports.includes(`\`${name}\``)]).toEqual([name, true]);
  // No walk-through command hard-codes the API's port.
  expect(readme).not.toMatch(/127\.0\.0\.1:3000\//);
  expect(readme).toContain('http://127.0.0.1:${PORT:-3000}/transactions/1');
});
