/**
 * How `npm run token` refuses: one line for stderr and an exit status (2 for a usage error),
 * never with the password or a token in it. commands/token/cli.ts prints it after `token: `.
 */
export class TokenRefusal extends Error {
  override readonly name = 'TokenRefusal';
  readonly status: number;
  constructor(message: string, status = 1) {
    super(message);
    this.status = status;
  }
}

/** A deployed stack's outputs could not be read; commands/token/cli.ts says what AWS setup is missing. */
export class StackUnreadable extends Error {
  override readonly name = 'StackUnreadable';
  constructor(stackName: string, cause: unknown) {
    const e = cause as Error;
    super(`could not read stack ${stackName}'s outputs: ${e.name}: ${e.message}`, { cause });
  }
}
