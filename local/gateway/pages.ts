/**
 * The local rig's own pages, served without a token; the deployed API has no such routes. They
 * are the contract as JSON, the docs page and the docs page's files, each file with the headers
 * of its own type.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { DOCS_ASSETS, DOCS_PATH, docsPage } from './docs-page.ts';

/** The API's contract, served by the local gateway (only) as GET /openapi.json. */
export const OPENAPI_FILE = join(PROJECT_ROOT, 'openapi.yaml');
export const OPENAPI_PATH = '/openapi.json';

export interface LocalPage {
  contentType: string;
  headers: Record<string, string>;
  body: () => Promise<string | Buffer>;
}
const NOSNIFF = { 'x-content-type-options': 'nosniff' };

/** The pages for GET and HEAD by path; the contract is read once, again after a failed read. */
export function createLocalPages(openApiFile: string) {
  let openApiJson: Promise<string> | undefined;
  const openApi = (): Promise<string> => {
    openApiJson ??= readFile(openApiFile, 'utf8').then((text) => JSON.stringify(parseYaml(text)));
    return openApiJson.catch((error: unknown) => {
      openApiJson = undefined;
      throw error;
    });
  };
  return (path: string): LocalPage | undefined => {
    if (path === OPENAPI_PATH)
      return { contentType: 'application/json; charset=utf-8', headers: {}, body: openApi };
    if (path === DOCS_PATH)
      return {
        contentType: 'text/html; charset=utf-8',
        headers: NOSNIFF,
        body: () => docsPage({ kind: 'local' }),
      };
    const asset = Object.hasOwn(DOCS_ASSETS, path) ? DOCS_ASSETS[path] : undefined;
    return (
      asset && {
        contentType: asset.contentType,
        headers: NOSNIFF,
        body: () => readFile(asset.file),
      }
    );
  };
}
