/**
 * How a command refuses from anywhere in it: one line for stderr and an exit status (2: a usage
 * error). Its main turns it into `<command>: <line>` and returns the status, so that bin/ only
 * sets the exit code and the command's steps need not end the process themselves.
 */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
  readonly status: number;
  constructor(message: string, status = 1) {
    super(message);
    this.status = status;
  }
}

/**
 * Runs a command's body: its status, or a CommandFailure's line on stderr after `<command>: ` and
 * its status. Anything else goes on: it is a fault, not an answer, and keeps its stack.
 */
export async function failing(command: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof CommandFailure)) throw error;
    process.stderr.write(`${command}: ${error.message}\n`);
    return error.status;
  }
}
