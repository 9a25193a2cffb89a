/** `npm run import -- <file> [--stage <name> | --stack <name>]`: commands/import/cli.ts. */
import { importCommand } from '../commands/import/cli.ts';

// Out at once, as soon as the report is printed, whatever the run left open.
process.exit(await importCommand(process.argv.slice(2)));
