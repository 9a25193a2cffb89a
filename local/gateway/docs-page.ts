/**
 * Interactive API docs: Swagger UI over openapi.yaml. It comes from swagger-ui-dist in
 * node_modules, so the page needs no CDN and works offline. The local gateway serves it at /docs,
 * where "Try it out" calls the local rig on the same origin. `npm run docs` writes the same page
 * as one self-contained HTML file, UI and contract inlined, to publish beside a deployment.
 * Swagger UI was chosen because it calls the API from the page and its standalone bundle (a
 * script and its CSS) needs nothing else (docs/decisions/0025-swagger-ui.md).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

export const DOCS_PATH = '/docs';
/** The UI's files, served under /docs/ by the local gateway. */
export const DOCS_ASSETS: Record<string, { file: string; contentType: string }> = {
  [`${DOCS_PATH}/swagger-ui.css`]: {
    file: join(SWAGGER_UI_DIR, 'swagger-ui.css'),
    contentType: 'text/css; charset=utf-8',
  },
  [`${DOCS_PATH}/swagger-ui-bundle.js`]: {
    file: join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'),
    contentType: 'text/javascript; charset=utf-8',
  },
};

export type DocsTarget =
  /** Served by the local gateway: assets and contract fetched from it, calls go to its origin. */
  | { kind: 'local' }
  /** One file: assets and contract inlined, calls go to the document's servers. */
  | { kind: 'published'; openApiFile: string };

const LOCAL_HELP = `
  <p><strong>Try it against this local rig.</strong> Get an access token in a terminal, in the
  project's folder:</p>
  <pre>npm run --silent token -- teller@example.com       # any signed-in user: transactions
npm run --silent token -- compliance@example.com   # in customer-readers: customers too</pre>
  <p>then <em>Authorize</em>, paste the token (without <code>Bearer</code>), and on an operation
  <em>Execute</em>. When a token expires, get another.</p>`;

const PUBLISHED_HELP = `
  <p><strong>Calling a deployment</strong> needs a Cognito access token of its user pool, issued
  to its app client (for example <code>aws cognito-idp initiate-auth --auth-flow USER_PASSWORD_AUTH
  --client-id &lt;app client id&gt; --auth-parameters USERNAME=…,PASSWORD=…</code>, field
  <code>AccessToken</code>). Choose the server, <em>Authorize</em> with the token, then
  <em>Execute</em>. The API allows browser origins only when the deployment names them (CORS).</p>`;

/** Inside a <script> element, `</script` or `<!--` must not appear: JSON escapes `<` as \u003c. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
/**
 * The same for inlined code, where those sequences occur only in string and regex literals
 * (checked when written: swagger-ui's one `<!--` and one `<script` are in regexes), and `\x3C`
 * means `<` in both.
 */
const inlineScript = (code: string) => code.replace(/<(!--|\/?script)/gi, '\\x3C$1');

export async function docsPage(target: DocsTarget): Promise<string> {
  const local = target.kind === 'local';
  const [css, bundle, spec] = local
    ? [undefined, undefined, undefined]
    : await Promise.all([
        readFile(DOCS_ASSETS[`${DOCS_PATH}/swagger-ui.css`]!.file, 'utf8'),
        readFile(DOCS_ASSETS[`${DOCS_PATH}/swagger-ui-bundle.js`]!.file, 'utf8'),
        readFile(target.openApiFile, 'utf8').then((text) => parseYaml(text) as unknown),
      ]);
  const init = `
(async () => {
  const spec = ${local ? `await (await fetch('/openapi.json')).json()` : scriptJson(spec)};
  ${local ? `spec.servers = [{ url: location.origin, description: 'This local rig (npm start)' }];` : ''}
  window.ui = SwaggerUIBundle({
    spec,
    dom_id: '#swagger-ui',
    tryItOutEnabled: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    validatorUrl: null,
  });
})();`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Currency Exchange Read API</title>
${local ? `<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">` : `<style>${css}</style>`}
<style>
  body { margin: 0; font-family: sans-serif; }
  .token-help { max-width: 1460px; margin: 0 auto; padding: 12px 20px; background: #fff8e1;
    border-bottom: 1px solid #f0d98c; font-size: 14px; }
  .token-help p { margin: 6px 0; }
  .token-help pre { margin: 6px 0; padding: 8px; background: #fff; border: 1px solid #eee; }
</style>
</head>
<body>
<div class="token-help">${local ? LOCAL_HELP : PUBLISHED_HELP}</div>
<div id="swagger-ui"></div>
${local ? `<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>` : `<script>${inlineScript(bundle!)}</script>`}
<script>${init}</script>
</body>
</html>
`;
}
