/** `node:fs/promises` in the bundles, without its ES module facade (../README.md). */
const fsPromises = process.getBuiltinModule('node:fs/promises');
export default fsPromises;
export const { readFile } = fsPromises;
