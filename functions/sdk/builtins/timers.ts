/** `node:timers` in the bundles, without its ES module facade (../README.md). */
const timers = process.getBuiltinModule('node:timers');
export default timers;
export const { setTimeout } = timers;
