/**
 * The tests' environment (jest.config.js): what the code under test writes while a test runs (the
 * functions' JSON log and audit lines, the local rig's and gateway's logs, console output) is
 * kept, and printed only when that test or a hook fails. A passing run then shows jest's results
 * alone; a failing test still shows what the functions said. Tests that assert on log lines spy
 * on process.stdout.write or pass a sink of their own, as before: a spy replaces this capture.
 */
import { format } from 'node:util';
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';

/** Kept per test: enough to read a failure, not thousands of request lines. */
const MAX_CHUNKS = 2000;
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

type Write = typeof process.stdout.write;

export default class QuietEnvironment extends TestEnvironment {
  private chunks: string[] = [];
  private dropped = 0;
  private restores: (() => void)[] = [];
  private readonly stderr = process.stderr.write.bind(process.stderr) as (text: string) => boolean;

  override async setup(): Promise<void> {
    await super.setup();
    for (const stream of [process.stdout, process.stderr]) this.captureStream(stream);
    // jest set the test file's console before setup: its lines go to the same buffer.
    const console = this.global.console as unknown as Record<string, unknown>;
    for (const method of CONSOLE_METHODS) {
      console[method] = (...args: unknown[]) => this.keep(`${format(...args)}\n`);
    }
  }

  override async teardown(): Promise<void> {
    for (const restore of this.restores.splice(0).reverse()) restore();
    await super.teardown();
  }

  handleTestEvent(event: Circus.Event): void {
    if (event.name === 'test_done') {
      if (event.test.errors.length > 0) this.print(`test "${fullName(event.test)}" failed`);
      this.clear();
    } else if (event.name === 'hook_failure') {
      this.print(`${event.hook.type} hook failed`);
      this.clear();
    }
  }

  private captureStream(stream: NodeJS.WriteStream): void {
    const original = Object.getOwnPropertyDescriptor(stream, 'write');
    const capture = (chunk: unknown, ...rest: unknown[]): boolean => {
      this.keep(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    };
    stream.write = capture as Write;
    this.restores.push(() => {
      if (original) Object.defineProperty(stream, 'write', original);
      else delete (stream as Partial<NodeJS.WriteStream>).write;
    });
  }

  private keep(text: string): void {
    this.chunks.push(text);
    if (this.chunks.length > MAX_CHUNKS) {
      this.chunks.shift();
      this.dropped += 1;
    }
  }

  private clear(): void {
    this.chunks = [];
    this.dropped = 0;
  }

  /** To the worker's real stderr, which jest passes on as it is. */
  private print(why: string): void {
    if (this.chunks.length === 0) return;
    const skipped = this.dropped > 0 ? ` (the first ${this.dropped} writes dropped)` : '';
    const body = this.chunks.join('');
    const text = `\n── What the code under test wrote before ${why}${skipped}:\n${body}${body.endsWith('\n') ? '' : '\n'}── end\n`;
    this.stderr(text);
  }
}

function fullName(test: Circus.TestEntry): string {
  const names = [test.name];
  for (let block = test.parent; block.parent; block = block.parent) names.unshift(block.name);
  return names.join(' › ');
}
