/** `node:stream` in the bundles, without its ES module facade (../README.md). */
const stream = process.getBuiltinModule('node:stream');
export default stream;
export const { PassThrough, Readable, Writable } = stream;
