/**
 * The staff page's files as served, at one path in every place: `/app/` on the local gateway and
 * on the stage's CloudFront distribution. The script is bundled by esbuild from main.ts (with the
 * typed client and the Cognito client) for browsers; the rest is copied as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { PROJECT_ROOT } from '../core/project-root.ts';

export type { StaffAppConfig } from './config.ts';

export const STAFF_APP_PATH = '/app/';
const SOURCE_DIR = join(PROJECT_ROOT, 'staff-app');

export interface StaticFile {
  readonly contentType: string;
  readonly body: string;
}

const POLICY_SLOT = '<!-- deploy-time policy -->';

/**
 * index.html, with a second Content-Security-Policy in a <meta> element when `policy` is given.
 * A browser enforces every policy it is given, so the meta's narrower connect-src (written at
 * deploy time, when the stage's API URL is known) narrows the header's.
 */
export function staffAppIndex(policy?: string): string {
  const html = readFileSync(join(SOURCE_DIR, 'index.html'), 'utf8');
  if (!html.includes(POLICY_SLOT)) throw new Error(`staff-app/index.html lacks ${POLICY_SLOT}`);
  const meta = policy
    ? `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}" />`
    : '';
  return html.replace(POLICY_SLOT, meta);
}

/**
 * index.html, app.css and app.js, by name. Bundling takes about a second: callers build once.
 * Minified, no source map: the page ships no more than it runs.
 */
export function buildStaffApp(): Record<string, StaticFile> {
  const result = buildSync({
    entryPoints: [join(SOURCE_DIR, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    mainFields: ['browser', 'module', 'main'],
    write: false,
    outfile: 'app.js',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const script = result.outputFiles[0];
  if (!script) throw new Error('esbuild wrote no staff page script');
  const read = (name: string) => readFileSync(join(SOURCE_DIR, name), 'utf8');
  return {
    'index.html': { contentType: 'text/html; charset=utf-8', body: staffAppIndex() },
    'app.css': { contentType: 'text/css; charset=utf-8', body: read('app.css') },
    'app.js': { contentType: 'text/javascript; charset=utf-8', body: script.text },
  };
}
