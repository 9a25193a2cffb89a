/**
 * The arguments of `npm run --silent token` (commands/token/cli.ts): whose token, where (the local rig,
 * or a stage's with --stage/--stack), and the code when it is given (--otp) rather than asked.
 */
import { DEMO_USERS } from '../../local/cognito/user-pool.ts';
import { CommandFailure } from '../command-failure.ts';

export const DEMO_USERNAMES = DEMO_USERS.map((u) => u.username).join(', ');

export const TOKEN_USAGE =
  'usage: npm run --silent token -- <username>           (a local demo user: ' +
  `${DEMO_USERNAMES})\n` +
  '       npm run --silent token -- <username> [--otp <code>]   (a local user added with\n' +
  '         `npm run access -- add` who has signed in once on the staff page: the password\n' +
  '         from TOKEN_PASSWORD or asked, the code from --otp or asked)\n' +
  "       npm run --silent token -- --code <username>    (a local demo user's current TOTP code)\n" +
  '       npm run --silent token -- --stage <name> <username> [--otp <code>]   (or --stack <name>;\n' +
  '         the password from TOKEN_PASSWORD or asked, the code from --otp or asked)';

export interface TokenArgs {
  readonly username: string;
  /** `--code`: print a local demo user's current TOTP code instead of a token. */
  readonly code: boolean;
  readonly stack?: string;
  readonly stage?: string;
  /** `--otp`: the code of the user's authenticator app, instead of asking for it. */
  readonly otp?: string;
}

function usage(message: string): never {
  throw new CommandFailure(message, 2);
}

export function parseTokenArgs(argv: readonly string[]): TokenArgs {
  const rest = [...argv];
  const take = (flag: string): string | undefined => {
    const at = rest.indexOf(flag);
    if (at === -1) return undefined;
    const value = rest[at + 1];
    if (value === undefined || value === '' || value.startsWith('-'))
      usage(`${flag} needs a value\n${TOKEN_USAGE}`);
    rest.splice(at, 2);
    return value;
  };
  const stage = take('--stage');
  const stack = take('--stack');
  const otp = take('--otp');
  const codeAt = rest.indexOf('--code');
  if (codeAt !== -1) rest.splice(codeAt, 1);
  const [username, ...extra] = rest;
  if (!username || username.startsWith('-') || extra.length > 0) usage(TOKEN_USAGE);
  if (stage !== undefined && stack !== undefined) usage('give --stage or --stack, not both');
  const deployed = stage !== undefined || stack !== undefined;
  if (codeAt !== -1 && deployed)
    usage("--code is for the local demo users: a stage's codes are on its users' phones");
  if (codeAt !== -1 && otp !== undefined) usage('give --code or --otp, not both');
  if (otp !== undefined && !/^\d{6}$/.test(otp)) usage('--otp takes the 6 digits of a code');
  return {
    username,
    code: codeAt !== -1,
    ...(stage !== undefined ? { stage } : {}),
    ...(stack !== undefined ? { stack } : {}),
    ...(otp !== undefined ? { otp } : {}),
  };
}
