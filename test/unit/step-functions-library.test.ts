/**
 * local/step-functions/step-functions-library.ts: the local drop's state machine library runs a workflow
 * of local handlers without loading the Lambda client or asl-validator, and a Task that would
 * need Lambda is refused in words. In a child process: the stand-ins work in Node.js's loader.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';

const SCRIPT = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load: (url, context, next) => (loaded.push(url), next(url, context)) });
const { loadStepFunctions } = await import(${JSON.stringify(join(PROJECT_ROOT, 'local/step-functions/step-functions-library.ts'))});
const { StateMachine } = await loadStepFunctions();
const task = { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:t', End: true };
const machine = new StateMachine({ StartAt: 'T', States: { T: task } }, { validationOptions: { noValidate: true } });
const local = { overrides: { taskResourceLocalHandlers: { T: async (input) => ({ twice: input.n * 2 }) } } };
const result = await machine.run({ n: 21 }, local).result;
let remote;
try { await machine.run({ n: 1 }).result; } catch (error) { remote = String(error.cause?.message ?? error.message); }
const seen = (name) => loaded.some((url) => url.includes('/node_modules/' + name + '/'));
console.log(JSON.stringify({ result, remote, lambda: seen('@aws-sdk/client-lambda'), validator: seen('asl-validator') }));
`;

test('the local drop runs its Tasks without the Lambda client or asl-validator loaded', () => {
  const run = spawnSync(process.execPath, ['--input-type=module', '--eval', SCRIPT], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  const out = JSON.parse(run.stdout) as Record<string, unknown>;
  expect(out).toEqual({
    result: { twice: 42 },
    remote: expect.stringContaining('The Lambda client is not loaded in the local drop'),
    lambda: false,
    validator: false,
  });
}, 60_000);
