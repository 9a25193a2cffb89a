/** `npm run files -- put <dir>`: commands/files/cli.ts. */
import { filesCommand } from '../commands/files/cli.ts';

process.exitCode = await filesCommand(process.argv.slice(2));
