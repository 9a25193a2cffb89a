/**
 * The table client's response collector (functions/sdk/stream-collector.ts): the bytes and the
 * failures of the SDK's own collector, without loading Node.js's web streams, which the SDK's
 * loads on its first answer (an https endpoint's first request, as in Lambda).
 */
import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { streamCollector as sdkCollector } from '@smithy/node-http-handler';
import { streamCollector } from '../../functions/sdk/stream-collector.ts';
import { createTableClient } from '../../functions/sdk/table-client.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';

const body = () =>
  Readable.from([Buffer.from('{"Item":'), Buffer.from('{"pk":{"S":"é"}}'), Buffer.from('}')]);

test('the table client reads its answers with it', () => {
  const client = createTableClient({ region: 'us-east-1' });
  expect(client.config.streamCollector).toBe(streamCollector);
  client.destroy();
});

test('an answer in several chunks: the same bytes as the SDK’s collector', async () => {
  const ours = await streamCollector(body());
  expect(Buffer.from(ours).toString('utf8')).toBe('{"Item":{"pk":{"S":"é"}}}');
  expect(Buffer.from(ours).equals(Buffer.from(await sdkCollector(body())))).toBe(true);
});

test('an empty answer: no bytes', async () => {
  expect((await streamCollector(Readable.from([]))).length).toBe(0);
});

test('an answer that breaks off: the error, as the SDK’s collector gives it', async () => {
  const broken = () =>
    new Readable({
      read() {
        this.push(Buffer.from('{"It'));
        this.destroy(new Error('socket hang up'));
      },
    });
  await expect(streamCollector(broken())).rejects.toThrow('socket hang up');
  await expect(sdkCollector(broken())).rejects.toThrow('socket hang up');
});

/** How many of Node.js's web-stream modules a fresh process has loaded after one collection. */
async function webStreamsLoaded(collector: string): Promise<number> {
  const script = `
    import { Readable } from 'node:stream';
    const { streamCollector } = await import(${JSON.stringify(collector)});
    await streamCollector(Readable.from([Buffer.from('{}')]));
    console.log(process.moduleLoadList.filter((m) => m.includes('webstreams')).length);`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script],
    { cwd: PROJECT_ROOT },
  );
  return Number(stdout.trim());
}

test('ours loads no web streams; the SDK’s does', async () => {
  expect(await webStreamsLoaded(`${PROJECT_ROOT}/functions/sdk/stream-collector.ts`)).toBe(0);
  expect(await webStreamsLoaded('@smithy/node-http-handler')).toBeGreaterThan(0);
});
