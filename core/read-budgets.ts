/**
 * The read budgets of SPEC 8 in one place: how many reads of a route one signed-in user may make
 * per window, where a stage sets them (CDK context) and how the functions receive them
 * (environment). The stack and the functions validate with the same code, so a value the stack
 * deploys is a value the functions start with.
 */

/** Routes with a budget, by the entity they read. */
export type BudgetedEntity = 'customer' | 'transaction';

export interface ReadBudgets {
  /** Customer reads per user and window. */
  readonly customers: number;
  /** Transaction reads per user and window. */
  readonly transactions: number;
  /** Window length in seconds; windows start at multiples of it (epoch seconds). */
  readonly windowSeconds: number;
}

/**
 * SPEC 8 defaults: a person at work reads a record every few seconds at most, so 60 customer and
 * 300 transaction reads per 5 minutes is never met by hand; a script at the stage throttle
 * (50 requests/s, lib/api.ts) meets either within seconds.
 */
export const DEFAULT_READ_BUDGETS: ReadBudgets = {
  customers: 60,
  transactions: 300,
  windowSeconds: 300,
};

/** Environment variables the functions (and `npm start`) read the budgets from. */
export const READ_BUDGET_ENV = {
  customers: 'READ_BUDGET_CUSTOMERS',
  transactions: 'READ_BUDGET_TRANSACTIONS',
  windowSeconds: 'READ_BUDGET_WINDOW_SECONDS',
} as const satisfies Record<keyof ReadBudgets, string>;

/** CDK context keys a stage sets them with (`-c readBudgetCustomers=120`). */
export const READ_BUDGET_CONTEXT = {
  customers: 'readBudgetCustomers',
  transactions: 'readBudgetTransactions',
  windowSeconds: 'readBudgetWindowSeconds',
} as const satisfies Record<keyof ReadBudgets, string>;

/**
 * Accepted ranges. Maxima, and why:
 * - A budget of at most 100,000 reads per window. Staff read a few hundred records a day; a
 *   larger figure stops no script and is almost surely a slipped digit.
 * - A window of at most 3,600 s. A user who meets the budget waits for the window to end
 *   (Retry-After), so a longer window locks a person out for longer than an hour after one burst;
 *   and each window leaves a counter on the user's access-state item, so windows are not so short
 *   either in practice (the minimum, 1 s, is only what "positive" allows).
 */
export const READ_BUDGET_LIMITS = {
  budgetMax: 100_000,
  windowSecondsMax: 3_600,
} as const;

export class ReadBudgetError extends Error {
  override readonly name = 'ReadBudgetError';
}

/** A positive whole number from a number or a plain decimal string; undefined if not one. */
function positiveInteger(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw > 0 ? raw : undefined;
  if (typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw)) return Number(raw);
  return undefined;
}

/**
 * Reads and checks budgets from raw values (strings from the environment or `-c`, numbers from
 * cdk.json); a missing value (undefined or '') takes its default. `names` says where each value
 * came from, so that the error names the setting the user has to fix.
 */
export function parseReadBudgets(
  raw: Partial<Record<keyof ReadBudgets, unknown>>,
  names: Record<keyof ReadBudgets, string> = READ_BUDGET_CONTEXT,
): ReadBudgets {
  const one = (key: keyof ReadBudgets, max: number): number => {
    const value = raw[key];
    if (value === undefined || value === '') return DEFAULT_READ_BUDGETS[key];
    const n = positiveInteger(value);
    if (n === undefined || n > max) {
      throw new ReadBudgetError(
        `${names[key]} must be a whole number from 1 to ${max}, got: ${JSON.stringify(value)}`,
      );
    }
    return n;
  };
  return {
    customers: one('customers', READ_BUDGET_LIMITS.budgetMax),
    transactions: one('transactions', READ_BUDGET_LIMITS.budgetMax),
    windowSeconds: one('windowSeconds', READ_BUDGET_LIMITS.windowSecondsMax),
  };
}

/** Checks budgets given as values (stack props); returns them unchanged. */
export function validateReadBudgets(budgets: ReadBudgets): ReadBudgets {
  parseReadBudgets(budgets, {
    customers: 'customers',
    transactions: 'transactions',
    windowSeconds: 'windowSeconds',
  });
  return budgets;
}

/** The functions' view: the budgets from their environment, defaults for unset variables. */
export function readBudgetsFromEnv(env: Record<string, string | undefined>): ReadBudgets {
  return parseReadBudgets(
    {
      customers: env[READ_BUDGET_ENV.customers],
      transactions: env[READ_BUDGET_ENV.transactions],
      windowSeconds: env[READ_BUDGET_ENV.windowSeconds],
    },
    READ_BUDGET_ENV,
  );
}

/** The stack's view: the environment variables that hand the budgets to a function. */
export function readBudgetsToEnv(budgets: ReadBudgets): Record<string, string> {
  return {
    [READ_BUDGET_ENV.customers]: String(budgets.customers),
    [READ_BUDGET_ENV.transactions]: String(budgets.transactions),
    [READ_BUDGET_ENV.windowSeconds]: String(budgets.windowSeconds),
  };
}

/** The budget of the route that reads `entity`. */
export function budgetFor(budgets: ReadBudgets, entity: BudgetedEntity): number {
  return entity === 'customer' ? budgets.customers : budgets.transactions;
}

/**
 * The window an instant falls in, as its first epoch second. Fixed windows aligned to the epoch:
 * every function instance agrees on the window without coordination, and a counter is one
 * attribute per window.
 */
export function windowStart(nowSeconds: number, windowSeconds: number): number {
  return Math.floor(nowSeconds / windowSeconds) * windowSeconds;
}

/** Whole seconds until the next window, where a read is free again (Retry-After, at least 1). */
export function retryAfterSeconds(nowSeconds: number, windowSeconds: number): number {
  return Math.max(
    1,
    Math.ceil(windowStart(nowSeconds, windowSeconds) + windowSeconds - nowSeconds),
  );
}
