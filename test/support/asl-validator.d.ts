/** asl-validator 3 ships no types: what the tests use of it. */
declare module 'asl-validator' {
  export default function aslValidator(
    definition: unknown,
    options?: { checkArn?: boolean; checkPaths?: boolean },
  ): { isValid: boolean; errorsText: (separator?: string) => string };
}
