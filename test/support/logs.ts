import { jest } from '@jest/globals';

/** Drops the functions' request log lines (thousands in a concurrency test); keeps the rest. */
export function quietRequestLogs(): void {
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  jest
    .spyOn(process.stdout, 'write')
    .mockImplementation(((chunk: unknown, ...rest: unknown[]) =>
      String(chunk).startsWith('{"timestamp"') ? true : write(chunk, ...rest)) as never);
}
