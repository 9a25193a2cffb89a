/** `npm run access -- <verb> <user> [...]`: commands/access/cli.ts. */
import { accessCommand } from '../commands/access/cli.ts';

process.exitCode = await accessCommand(process.argv.slice(2));
