import { fileURLToPath } from 'node:url';

/**
 * The repository root (no trailing slash): where handler entries, openapi.yaml and
 * package-lock.json live. Computed here once, from this file's place, so that every tool, test
 * and the stack agree on it whatever the working directory.
 */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
