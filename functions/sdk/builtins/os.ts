/** `node:os` in the bundles, without its ES module facade (../README.md). */
const os = process.getBuiltinModule('node:os');
export default os;
export const { homedir, platform, release } = os;
