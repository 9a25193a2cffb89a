/**
 * aws-local-stepfunctions for the local drop (local/step-functions/import-runner.ts) without the three modules
 * it imports up front and the local drop never calls: the Lambda client and the Cognito
 * credential provider (every Task runs a local handler: the runner refuses a Task without one)
 * and asl-validator (the runner skips validation: `noValidate`; the stage's definition is checked
 * by cfn-lint and its own tests). Each is replaced, for that package alone, by a module that
 * throws if called. What it saves: docs/performance.md, "The local drop's library". Remove:
 * import the package directly.
 * Node.js's own loader only: under jest the package loads whole.
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
      // Jest's module sandbox refuses loader hooks (jest 30): the package loads whole there.
    }
  }
  return import('aws-local-stepfunctions');
}
