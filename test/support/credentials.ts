/** Fixed signing credentials in the environment for one test file, restored afterwards. */
export function useTestCredentials(): void {
  const env = { ...process.env };
  beforeAll(() => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret';
    delete process.env.AWS_SESSION_TOKEN;
  });
  afterAll(() => {
    process.env = env;
  });
}
