/** `npm run docs [-- <file>]`: commands/docs/cli.ts. */
import { docsCommand } from '../commands/docs/cli.ts';

process.exitCode = await docsCommand(process.argv.slice(2));
