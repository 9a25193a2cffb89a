/** `npm run --silent token -- <username>`: commands/token/cli.ts. */
import { tokenCommand } from '../commands/token/cli.ts';

process.exitCode = await tokenCommand(process.argv.slice(2));
