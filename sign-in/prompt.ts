/**
 * Questions on the terminal, for the sign-in commands: a password is typed without echo. Asked
 * on stderr, so that stdout carries only what a command prints for scripts (a token).
 */
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/** Whether there is a person at a terminal to ask. */
export function canAsk(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** Asks `question` on the terminal; `hidden`: what is typed is not shown. */
export async function ask(question: string, hidden = false): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    process.stderr.write(question);
    muted = hidden;
    const answer = await rl.question('');
    if (hidden) process.stderr.write('\n');
    return answer.trim();
  } finally {
    rl.close();
  }
}
