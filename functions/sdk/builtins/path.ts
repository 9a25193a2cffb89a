/** `node:path` in the bundles, without its ES module facade (../README.md). */
const path = process.getBuiltinModule('node:path');
export default path;
export const { join, sep } = path;
