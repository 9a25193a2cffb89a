/** The import bucket in memory, for tests that run the import's steps without an S3. */
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

/**
 * The import bucket in memory, as WritePart uses it; `dead()` says the writer's process is gone:
 * then it saves nothing (a killed attempt's last saves never land).
 */
export function memoryS3(dead: () => boolean = () => false, killed = () => new Error('killed')) {
  const objects = new Map<string, Uint8Array>();
  const body = (bytes: Uint8Array) => ({
    transformToString: async () => Buffer.from(bytes).toString('utf8'),
    async *[Symbol.asyncIterator]() {
      yield bytes;
    },
  });
  const notFound = (name: string) => Object.assign(new Error(name), { name });
  const s3 = {
    send: async (command: unknown) => {
      await Promise.resolve();
      const input = (command as { input: { Key: string; Body?: string | Uint8Array } }).input;
      if (command instanceof PutObjectCommand) {
        if (dead()) throw killed();
        const b = input.Body!;
        objects.set(input.Key, typeof b === 'string' ? Buffer.from(b) : b);
        return {};
      }
      const found = objects.get(input.Key);
      if (command instanceof GetObjectCommand) {
        if (!found) throw notFound('NoSuchKey');
        return { Body: body(found) };
      }
      if (command instanceof HeadObjectCommand) {
        if (!found) throw notFound('NotFound');
        return {};
      }
      throw new Error('not in this S3');
    },
  } as unknown as S3Client;
  return { s3, objects };
}
