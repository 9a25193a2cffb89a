/** `node:https` in the bundles, without its ES module facade (../README.md). */
const https = process.getBuiltinModule('node:https');
export default https;
export const { Agent, request } = https;
