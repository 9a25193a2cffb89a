/**
 * Under jest, otplib is test/support/otplib-stub.cjs (jest.config.js): the local Cognito's TOTP
 * and sign-in/totp.ts run on it in every test that signs in. These tests hold it to the real
 * otplib 13, run by Node outside jest (where its ESM-only plugins load): the same code for the
 * same secret and time, secrets of either that decode in the other, the same verdicts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as stub from 'otplib';
import { PROJECT_ROOT } from '../../lib/project-root';
import { newTotpSecret, totpCode } from '../../sign-in/totp';

const run = promisify(execFile);

interface Case {
  secret: string;
  epoch: number;
}
interface RealAnswer {
  codes: string[];
  /** Real otplib's verdict on the stub's code 25 s and 95 s later (tolerance 30 s). */
  verdicts: [boolean, boolean][];
  secrets: string[];
}

/** The real otplib's codes and verdicts for `cases`, and `secrets` new secrets of its own. */
async function realOtplib(
  cases: Case[],
  stubCodes: string[],
  secrets: number,
): Promise<RealAnswer> {
  const script = `
    import { generateSecret, generateSync, verifySync } from 'otplib';
    const { cases, stubCodes, secrets } = JSON.parse(process.argv[1]);
    const codes = cases.map(({ secret, epoch }) => generateSync({ secret, epoch }));
    const verdicts = stubCodes.map((token, i) =>
      [25, 95].map((later) =>
        verifySync({ ...cases[i], token, epoch: cases[i].epoch + later, epochTolerance: 30 }).valid,
      ),
    );
    const fresh = Array.from({ length: secrets }, () => generateSecret());
    process.stdout.write(JSON.stringify({ codes, verdicts, secrets: fresh }));
  `;
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // jest's --experimental-vm-modules: not wanted in a plain Node process
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify({ cases, stubCodes, secrets })],
    { cwd: PROJECT_ROOT, env },
  );
  return JSON.parse(stdout) as RealAnswer;
}

test('the module jest loads for otplib is the stub, with real TOTP in it', () => {
  // RFC 6238 appendix B: the ASCII secret "12345678901234567890", T = 59 s, SHA-1: 94287082.
  const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
  expect(stub.generateSync({ secret: rfcSecret, epoch: 59, digits: 8 })).toBe('94287082');
  expect(totpCode(rfcSecret, 59_000)).toBe('287082');
  expect(totpCode(rfcSecret, 1_111_111_109_000)).toBe('081804');
});

test('the stub and the real otplib: the same codes for the same secret and time, either secret decodes in the other', async () => {
  const stubSecrets = Array.from({ length: 12 }, () => newTotpSecret());
  for (const secret of stubSecrets) expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  const times = [30, 59, 1_700_000_000, 1_700_000_029, 1_700_000_030, 2_000_000_000];
  const cases = stubSecrets.map((secret, i) => ({ secret, epoch: times[i % times.length]! }));
  const stubCodes = cases.map(({ secret, epoch }) => totpCode(secret, epoch * 1000));
  const real = await realOtplib(cases, stubCodes, 6);

  expect(real.codes).toEqual(stubCodes);
  // The real otplib accepts the stub's code within the tolerance cognito-local uses, not beyond.
  expect(real.verdicts).toEqual(cases.map(() => [true, false]));
  // Secrets the real otplib made: the stub computes the same codes from them.
  const back = await realOtplib(
    real.secrets.map((secret, i) => ({ secret, epoch: times[i]! })),
    [],
    0,
  );
  expect(real.secrets.map((secret, i) => totpCode(secret, times[i]! * 1000))).toEqual(back.codes);
  // And the stub's own verdicts, as cognito-local asks for them.
  const [first] = cases;
  const code = stubCodes[0]!;
  const verdict = (later: number) =>
    stub.verifySync({
      secret: first!.secret,
      token: code,
      epoch: first!.epoch + later,
      epochTolerance: 30,
    }).valid;
  expect([verdict(0), verdict(25), verdict(95)]).toEqual([true, true, false]);
}, 60_000);
