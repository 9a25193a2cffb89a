/**
 * `npm run docs [-- <file>]`: writes the interactive API docs as one self-contained HTML file
 * (default dist/api-docs.html): Swagger UI and openapi.yaml inlined, nothing fetched from
 * anywhere, to publish beside a deployment.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { docsPage } from '../../local/gateway/docs-page.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { OPENAPI_FILE } from '../../local/gateway/gateway.ts';

/** The command's exit status; the file written. */
export async function docsCommand(argv: readonly string[]): Promise<number> {
  const out = resolve(argv[0] ?? resolve(PROJECT_ROOT, 'dist', 'api-docs.html'));
  const html = await docsPage({ kind: 'published', openApiFile: OPENAPI_FILE });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, html);
  const size = (Buffer.byteLength(html) / 1024 / 1024).toFixed(1);
  console.log(`Wrote ${relative(process.cwd(), out) || out} (${size} MB, self-contained)`);
  return 0;
}
