/**
 * Stoplight Prism (the lockfile-pinned devDependency) on 127.0.0.1 and a free port: a validating
 * proxy in front of a server (each response checked against openapi.yaml, violations reported in
 * its `sl-violations` header), or a mock answering from the document's examples. Prism is the
 * tool front-end teams mock this API with, so the contract must read to it as it reads to Ajv.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { freePort, LOCALHOST, waitUntil } from '../../local/net.ts';
import { OPENAPI_FILE } from '../../local/gateway/gateway.ts';

export interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

export interface Prism {
  readonly url: string;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);
const PRISM_BIN = require.resolve('@stoplight/prism-cli/dist/index.js');

/** `upstream` set: a validating proxy in front of it; else a mock of the document. */
export async function startPrism(
  options: { upstream?: string; document?: string } = {},
): Promise<Prism> {
  const port = await freePort();
  const args = options.upstream
    ? ['proxy', options.document ?? OPENAPI_FILE, options.upstream]
    : ['mock', options.document ?? OPENAPI_FILE];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      PRISM_BIN,
      ...args,
      '--host',
      LOCALHOST,
      '--port',
      String(port),
      '--cors=false',
      '--errors=false',
      // Requests are not what the proxy checks (the tests send malformed ones on purpose), and
      // Prism's request validation crashes the whole process on a malformed percent-encoding.
      ...(options.upstream ? ['--validate-request=false'] : []),
      '--verboseLevel=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString('utf8')).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited: Error | undefined;
  child.once('exit', (code) => (exited = new Error(`Prism exited (${code}): ${output}`)));
  const url = `http://${LOCALHOST}:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  try {
    // Any HTTP answer means it listens (a 404 for a path outside the document is one).
    await waitUntil(() => fetch(`${url}/`).then(() => true), {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'Prism',
      abort: () => exited,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

/** What Prism's proxy found wrong with a response (its `sl-violations` header), requests aside. */
export function responseViolations(headers: Headers): Violation[] {
  const header = headers.get('sl-violations');
  if (!header) return [];
  return (JSON.parse(header) as Violation[]).filter((v) => v.location[0] === 'response');
}
