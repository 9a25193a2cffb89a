/**
 * `cdk synth` itself, through the CLI and cdk.json as a user runs it: offline, with no AWS
 * credentials or configuration, no notices or version check, and a dead proxy so that any
 * attempt to reach the network fails instead of quietly succeeding. The three runs are processes
 * of their own, each with its output directory: they run at once.
 *
 * @slow: started first on a fresh clone (test/support/sequencer.js).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE_STACK_NAME } from '../../stage/stage.ts';
import { functionList } from '../../core/routes.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { DISPOSABLE_DEV_CONTEXT } from './synth.ts';

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

type SynthResult = Awaited<ReturnType<typeof run>>;

/**
 * `npx cdk synth` with the given arguments, offline (no credentials, and a dead proxy), into an
 * output directory of its own: `check` reads it, and it is removed after.
 */
async function offlineSynth(
  extra: string[],
  check: (result: SynthResult, outdir: string) => void,
): Promise<void> {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-cli-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(AWS_|CDK_|NODE_OPTIONS$|NODE_ENV$|JEST_)/.test(key)) env[key] = value;
  }
  Object.assign(env, {
    AWS_CONFIG_FILE: join(outdir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(outdir, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_VERSION_CHECK: '1',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '',
    CI: 'true',
  });
  try {
    const args = ['synth', '--quiet', '--no-notices', '--no-version-reporting', '-o', outdir];
    check(await run('npx', ['cdk', ...args, ...extra], env), outdir);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

test.concurrent(
  '`npx cdk synth` succeeds offline without AWS credentials and emits the stack and bundles',
  async () => {
    await offlineSynth([], (result, outdir) => {
      expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
        code: 0,
        stderr: '',
      });
      expect(result.stderr).not.toMatch(/AwsSolutions-|Error/);

      const template = JSON.parse(
        readFileSync(join(outdir, `${BASE_STACK_NAME}.template.json`), 'utf8'),
      ) as {
        Resources: Record<string, { Type: string; Properties: { Code?: { S3Key: string } } }>;
        Outputs: object;
      };
      expect(Object.keys(template.Outputs).sort()).toEqual([
        'AlarmTopicArn',
        'ApiUrl',
        'BucketName',
        'DeployedSettings',
        'FilesKeyArn',
        'ImportBucketName',
        'ImportKeyArn',
        'ImportStateMachineArn',
        'StaffAppUrl',
        'TableName',
        'UserPoolClientId',
        'UserPoolId',
      ]);
      // The API's functions' and the import's five steps' bundles (CDK's bucket-notifications handler is
      // inline code, not an asset; CDK's bucket deployment handler and bucket emptier, Custom*, are
      // CDK's own assets).
      const functions = Object.entries(template.Resources)
        .filter(
          ([id, r]) =>
            r.Type === 'AWS::Lambda::Function' &&
            r.Properties.Code?.S3Key !== undefined &&
            !id.startsWith('Custom'),
        )
        .map(([, r]) => r);
      expect(functions).toHaveLength(functionList.length + 5);
      for (const fn of functions) {
        const asset = join(outdir, `asset.${fn.Properties.Code!.S3Key.replace(/\.zip$/, '')}`);
        // No source map deployed: `npm run stack-trace` rebuilds it (docs/operations/alarms.md).
        expect(readdirSync(asset).sort()).toEqual(['index.mjs']);
      }
      // The staff page: its script and style bundled by esbuild during synth, index.html and
      // config.json written for the stage; no source map.
      const [deployment] = Object.values(template.Resources).filter(
        (r) => r.Type === 'Custom::CDKBucketDeployment',
      ) as unknown as { Properties: { SourceObjectKeys: string[] } }[];
      const pageFiles = deployment!.Properties.SourceObjectKeys.flatMap((key) =>
        readdirSync(join(outdir, `asset.${key.replace(/\.zip$/, '')}`)),
      );
      expect(pageFiles.sort()).toEqual(['app.css', 'app.js', 'config.json', 'index.html']);
      expect(existsSync(join(outdir, 'manifest.json'))).toBe(true);
    });
  },
  180_000,
);

test.concurrent(
  '`npx cdk synth -c stage=dev -c disposable=true -c alarmEmail=...` synthesizes the dev stack offline',
  async () => {
    const context = Object.entries(DISPOSABLE_DEV_CONTEXT).flatMap(([key, value]) => [
      '-c',
      `${key}=${value}`,
    ]);
    await offlineSynth(context, (result, outdir) => {
      expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
        code: 0,
        stderr: '',
      });
      expect(readdirSync(outdir)).toContain(`${BASE_STACK_NAME}-dev.template.json`);
      expect(existsSync(join(outdir, `${BASE_STACK_NAME}.template.json`))).toBe(false);
    });
  },
  180_000,
);

test.concurrent(
  '`npx cdk synth -c stage=Prod!` fails with the reason',
  async () => {
    await offlineSynth(['-c', 'stage=Prod!'], (result) => {
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('stage must be 1 to 20 lower-case letters');
    });
  },
  180_000,
);
