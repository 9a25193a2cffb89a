/** `npm run audit -- customer <id> | transaction <id> | user <user> [...]`: commands/audit/cli.ts. */
import { auditCommand } from '../commands/audit/cli.ts';

process.exitCode = await auditCommand(process.argv.slice(2));
