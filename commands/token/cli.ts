/**
 * `npm run --silent token -- <username>`: prints only an access token. A local demo user's from
 * the running local rig (`npm start`), its TOTP code computed; a local user added with
 * `npm run access -- add`, or with `--stage <name>`/`--stack <name>` a deployed stage's user,
 * with their password (TOKEN_PASSWORD or asked) and their authenticator app's code (`--otp` or
 * asked). `--code <username>` prints only a demo user's current code. Errors go to stderr in one
 * line, with a non-zero exit status.
 */
import { awsSetupProblem } from '../aws-setup.ts';
import { parseTokenArgs } from './args.ts';
import { localToken } from './local-token.ts';
import { CommandFailure } from '../command-failure.ts';
import { StackUnreadable } from './stack-unreadable.ts';
import { stageToken } from './stage-token.ts';

function refused(message: string, status = 1): number {
  process.stderr.write(`token: ${message}\n`);
  return status;
}

/** The command's exit status; the token (or the code) on stdout. */
export async function tokenCommand(argv: readonly string[]): Promise<number> {
  try {
    const args = parseTokenArgs(argv);
    const deployed = args.stage !== undefined || args.stack !== undefined;
    const line = await (deployed ? stageToken(args) : localToken(args));
    process.stdout.write(`${line}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CommandFailure) return refused(error.message, error.status);
    if (error instanceof StackUnreadable)
      return refused(awsSetupProblem(error.cause) ?? error.message);
    // Anything else in one line too: its name and message (never a password: none is in them).
    const e = error as Error;
    return refused(`${e.name}: ${e.message}`);
  }
}
