/**
 * The Lambda bundles as deployed, not only the sources: built from BUNDLING exactly as `cdk synth`
 * builds them (checks/functions.ts checks the two are byte for byte the same), each run in a fresh
 * Node.js process with only what Lambda gives a function: its variables and credentials in the
 * environment, no profile, no home directory with AWS files.
 * - the SDK's default credential chain is not in them (esbuild's metafile), the stock build has it;
 * - Node.js built-ins come through functions/sdk/builtins/, not ES module facades;
 * - a GET through each bundle against DynamoDB Local, its file URL signed with those credentials;
 * - the bundle's DynamoDB client signs a request byte for byte as the same function bundled with
 *   the stock SDK (its default credential chain) does;
 * - no credentials: init fails with a message that says what is missing, and
 *   `npm run stack-trace` maps that failure's stack to the source line that threw;
 * - every error class, made to happen in the bundle, carries its real name (errorName in logs).
 */
import './bundles/contents.ts';
import './bundles/errors.ts';
