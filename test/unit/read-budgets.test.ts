/** SPEC 8 read budgets: defaults, where they come from, what is refused, windows and Retry-After. */
import {
  DEFAULT_READ_BUDGETS,
  READ_BUDGET_CONTEXT,
  READ_BUDGET_ENV,
  READ_BUDGET_LIMITS,
  ReadBudgetError,
  budgetFor,
  parseReadBudgets,
  readBudgetsFromEnv,
  readBudgetsToEnv,
  retryAfterSeconds,
  validateReadBudgets,
  windowStart,
} from '../../core/read-budgets.ts';

test('the SPEC 8 defaults: 60 customer and 300 transaction reads per 5 minutes', () => {
  expect(DEFAULT_READ_BUDGETS).toEqual({ customers: 60, transactions: 300, windowSeconds: 300 });
  expect(readBudgetsFromEnv({})).toEqual(DEFAULT_READ_BUDGETS);
  expect(parseReadBudgets({})).toEqual(DEFAULT_READ_BUDGETS);
  expect(readBudgetsFromEnv({ READ_BUDGET_CUSTOMERS: '' })).toEqual(DEFAULT_READ_BUDGETS);
});

test('the environment names of SPEC 8, and a round trip through them', () => {
  expect(READ_BUDGET_ENV).toEqual({
    customers: 'READ_BUDGET_CUSTOMERS',
    transactions: 'READ_BUDGET_TRANSACTIONS',
    windowSeconds: 'READ_BUDGET_WINDOW_SECONDS',
  });
  const budgets = { customers: 5, transactions: 7, windowSeconds: 60 };
  expect(readBudgetsToEnv(budgets)).toEqual({
    READ_BUDGET_CUSTOMERS: '5',
    READ_BUDGET_TRANSACTIONS: '7',
    READ_BUDGET_WINDOW_SECONDS: '60',
  });
  expect(readBudgetsFromEnv(readBudgetsToEnv(budgets))).toEqual(budgets);
});

test('numbers (cdk.json) and decimal strings (-c, environment) are taken up to the maxima', () => {
  expect(
    parseReadBudgets({
      customers: 100_000,
      transactions: '100000',
      windowSeconds: String(READ_BUDGET_LIMITS.windowSecondsMax),
    }),
  ).toEqual({ customers: 100_000, transactions: 100_000, windowSeconds: 3600 });
  expect(parseReadBudgets({ customers: 1, transactions: '1', windowSeconds: 1 })).toEqual({
    customers: 1,
    transactions: 1,
    windowSeconds: 1,
  });
});

test.each([
  ['customers', '0'],
  ['customers', 0],
  ['customers', '-5'],
  ['customers', '1.5'],
  ['customers', 1.5],
  ['customers', 'abc'],
  ['customers', ' 60'],
  ['customers', '060'],
  ['customers', '1e3'],
  ['transactions', '100001'],
  ['transactions', true],
  ['windowSeconds', '3601'],
  ['windowSeconds', Number.NaN],
])('%s = %p is refused, naming the setting', (key, value) => {
  const name = READ_BUDGET_CONTEXT[key as keyof typeof READ_BUDGET_CONTEXT];
  expect(() => parseReadBudgets({ [key]: value })).toThrow(ReadBudgetError);
  expect(() => parseReadBudgets({ [key]: value })).toThrow(new RegExp(`^${name} must be`));
});

test('an error from the environment names the variable', () => {
  expect(() => readBudgetsFromEnv({ READ_BUDGET_WINDOW_SECONDS: '0' })).toThrow(
    'READ_BUDGET_WINDOW_SECONDS must be a whole number from 1 to 3600, got: "0"',
  );
});

test('validateReadBudgets refuses values a stack is given directly', () => {
  expect(validateReadBudgets(DEFAULT_READ_BUDGETS)).toBe(DEFAULT_READ_BUDGETS);
  expect(() => validateReadBudgets({ ...DEFAULT_READ_BUDGETS, customers: 0 })).toThrow(
    ReadBudgetError,
  );
});

test('each route has its own budget', () => {
  const budgets = { customers: 2, transactions: 3, windowSeconds: 10 };
  expect(budgetFor(budgets, 'customer')).toBe(2);
  expect(budgetFor(budgets, 'transaction')).toBe(3);
});

test('windows are aligned to the epoch; Retry-After is the whole seconds to the next one', () => {
  expect(windowStart(1_000, 300)).toBe(900);
  expect(windowStart(1_200, 300)).toBe(1_200);
  expect(retryAfterSeconds(1_000, 300)).toBe(200);
  expect(retryAfterSeconds(1_200, 300)).toBe(300);
  expect(retryAfterSeconds(1_199.5, 300)).toBe(1);
  expect(retryAfterSeconds(1_199.99, 300)).toBe(1);
});
