/** `npm run smoke -- <api-url>`: commands/smoke/cli.ts. */
import { smokeCommand } from '../commands/smoke/cli.ts';

process.exitCode = await smokeCommand(process.argv.slice(2));
