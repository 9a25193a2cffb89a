/**
 * Runs the stack's synth tests (test/infra) first, then the rest in jest's usual order (failed
 * first, then slowest). Why: under `--experimental-vm-modules` every test file loads aws-cdk-lib
 * anew and a worker's heap only grows (measured: 145 MB after one synth file, 749 MB after seven).
 * With `workerIdleMemoryLimit` a worker over the limit is replaced between files, so by the end
 * of the run both workers are fresh ones running lighter files. A worker that ends the run
 * holding ~600 MB takes longer than jest-worker's fixed 500 ms to be freed on a busy 2-core
 * machine, and jest then prints "A worker process has failed to exit gracefully".
 * Plain JavaScript: jest loads its sequencer without transforming it.
 */
import sequencerModule from '@jest/test-sequencer';

/** The package is CommonJS with an `__esModule` default: Node gives its exports object. */
const Sequencer = sequencerModule.default;

const SYNTH_TESTS = '/test/infra/';

export default class SynthFirstSequencer extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const synth = ordered.filter((test) => test.path.includes(SYNTH_TESTS));
    return [...synth, ...ordered.filter((test) => !test.path.includes(SYNTH_TESTS))];
  }
}
