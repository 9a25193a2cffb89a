/**
 * `npm run --silent token -- <username>`: prints only an access token. A local demo user's from
 * the running local stack (`npm start`), its TOTP code computed; a local user added with
 * `npm run access -- add`, or with `--stage <name>`/`--stack <name>` a deployed stage's user,
 * with their password (TOKEN_PASSWORD or asked) and their authenticator app's code (`--otp` or
 * asked). `--code <username>` prints only a demo user's current code. Errors go to stderr in one
 * line, with a non-zero exit status. The logic is in commands/token/.
 */
import { awsSetupProblem } from './aws-setup.ts';
import { parseTokenArgs } from '../commands/token/args.ts';
import { localToken } from '../commands/token/local-token.ts';
import { StackUnreadable, TokenRefusal } from '../commands/token/refusal.ts';
import { stageToken } from '../commands/token/stage-token.ts';

function fail(message: string, status = 1): never {
  process.stderr.write(`token: ${message}\n`);
  process.exit(status);
}

try {
  const args = parseTokenArgs(process.argv.slice(2));
  const deployed = args.stage !== undefined || args.stack !== undefined;
  const line = await (deployed ? stageToken(args) : localToken(args));
  process.stdout.write(`${line}\n`);
} catch (error) {
  if (error instanceof TokenRefusal) fail(error.message, error.status);
  if (error instanceof StackUnreadable) fail(awsSetupProblem(error.cause) ?? error.message);
  // Anything else in one line too: its name and message (never a password: none is in them).
  const e = error as Error;
  fail(`${e.name}: ${e.message}`);
}
