/** `npm run import -- --stage` / `--stack` (SPEC 9) against one stand-in stage for both halves (./import-stage/). */
import './import-stage/follow.ts';
import './import-stage/command.ts';
