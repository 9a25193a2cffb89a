/** `node:zlib` in the bundles, without its ES module facade (../README.md). */
const zlib = process.getBuiltinModule('node:zlib');
export default zlib;
export const { crc32 } = zlib;
