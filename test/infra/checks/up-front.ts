/**
 * The variants most checks read, synthesized before any check runs and with room for a busy
 * machine: the first synth also loads aws-cdk-lib, and the bundled one runs esbuild.
 */
import { DISPOSABLE_DEV_CONTEXT, synthesize } from '../synth.ts';

beforeAll(() => {
  synthesize();
  synthesize({ context: DISPOSABLE_DEV_CONTEXT });
  synthesize({ bundle: true });
}, 300_000);
