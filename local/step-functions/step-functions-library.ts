/**
 * aws-local-stepfunctions for the local drop (import-runner.ts), without three modules it imports
 * up front that the local drop never calls. Loading them made each local import slower for
 * nothing (see "The local drop's library" in docs/performance.md).
 *
 * The Lambda client and the Cognito credential provider go because every Task runs a local
 * handler, and the runner refuses a Task without one. asl-validator goes because the runner skips
 * validation (`noValidate`); cfn-lint and the stage's own tests check its definition. For that
 * package alone, each is replaced by a module that throws if called. Only Node.js's own loader
 * takes the hook, so under jest the package loads whole. To remove this file, import the package
 * directly.
 */
import { registerHooks } from 'node:module';

const refusal = (what: string) =>
  `throw new Error(${JSON.stringify(`${what} is not loaded in the local drop (local/step-functions/step-functions-library.ts)`)});`;

/** Each module the package imports that the local drop never uses, and its stand-in's source. */
export const UNUSED: Readonly<Record<string, string>> = {
  '@aws-sdk/client-lambda': `export class LambdaClient { constructor() { ${refusal('The Lambda client')} } }
export class InvokeCommand {}`,
  '@aws-sdk/credential-providers': `export function fromCognitoIdentityPool() { ${refusal('Cognito credentials')} }`,
  'asl-validator': `export default function aslValidator() { ${refusal('asl-validator')} }`,
};

const PACKAGE = '/node_modules/aws-local-stepfunctions/';
let registered = false;

export async function loadStepFunctions(): Promise<typeof import('aws-local-stepfunctions')> {
  if (!registered) {
    registered = true;
    try {
      registerHooks({
        resolve(specifier, context, next) {
          const source = UNUSED[specifier];
          if (source === undefined || !context.parentURL?.includes(PACKAGE))
            return next(specifier, context);
          const url = `data:text/javascript,${encodeURIComponent(source)}`;
          return { url, format: 'module', shortCircuit: true };
        },
      });
    } catch {
      // Jest's module sandbox (jest 30) refuses loader hooks, so the package loads whole there.
    }
  }
  return import('aws-local-stepfunctions');
}
