/** `node:fs` in the bundles, without its ES module facade (../README.md). */
const fs = process.getBuiltinModule('node:fs');
export default fs;
export const { ReadStream, createReadStream, fstatSync, lstatSync } = fs;
