/** `node:net` in the bundles, without its ES module facade (../README.md). */
const net = process.getBuiltinModule('node:net');
export default net;
export const { isIP } = net;
