/**
 * Read budgets for a test that reads many records, set as a stage sets them (SPEC 8): through
 * the functions' environment, at the largest value allowed.
 */
export const MANY_READS = {
  READ_BUDGET_CUSTOMERS: '100000',
  READ_BUDGET_TRANSACTIONS: '100000',
} as const;
