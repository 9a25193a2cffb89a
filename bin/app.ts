#!/usr/bin/env node
/** CDK entry point (`cdk.json` runs it with node). Everything is in lib/; see lib/app.ts. */
import { appFromCommandLine } from '../lib/app.ts';
import { SettingsError } from '../stage/settings.ts';

try {
  (await appFromCommandLine()).app.synth();
} catch (error) {
  // A setting the operator got wrong: the reason alone, one line; a stack trace would bury it.
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`Invalid setting: ${error.message}\n`);
  process.exit(1);
}
