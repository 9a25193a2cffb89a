/**
 * Jest's TypeScript transform: esbuild strips the types of each file alone (as tsconfig's
 * isolatedModules promises; `npm run lint` type-checks), keeping the ES modules jest runs natively.
 * esbuild is already the project's bundler (the Lambda functions, the staff page).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync, version } from 'esbuild';

const OPTIONS = {
  loader: 'ts',
  format: 'esm',
  target: 'node24',
  sourcemap: 'external',
  sourcesContent: false,
};

const tsconfigRaw = readFileSync(fileURLToPath(import.meta.resolve('../../tsconfig.json')), 'utf8');

export default {
  getCacheKey(source, path) {
    return createHash('sha256')
      .update(`${version}\0${JSON.stringify(OPTIONS)}\0${tsconfigRaw}\0${path}\0${source}`)
      .digest('hex');
  },
  process(source, path) {
    const { code, map } = transformSync(source, { ...OPTIONS, sourcefile: path, tsconfigRaw });
    return { code, map };
  },
};
