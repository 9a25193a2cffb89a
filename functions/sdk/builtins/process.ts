/** `node:process` in the bundles, without its ES module facade (../README.md). */
const nodeProcess = process.getBuiltinModule('node:process');
export default nodeProcess;
export const { env, versions } = nodeProcess;
