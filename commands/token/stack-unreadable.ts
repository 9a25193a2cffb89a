/** A deployed stack's outputs could not be read; commands/token/cli.ts says what AWS setup is missing. */
export class StackUnreadable extends Error {
  override readonly name = 'StackUnreadable';
  constructor(stackName: string, cause: unknown) {
    const e = cause as Error;
    super(`could not read stack ${stackName}'s outputs: ${e.name}: ${e.message}`, { cause });
  }
}
