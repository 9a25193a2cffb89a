/** The budgets the figures are held to, and their table. */
import { table, type BudgetRow } from './format.ts';

export const BUDGETS = {
  /** The deployed bundles against the stock floor (issue 11): whole-process import, size, start→first response. */
  coldImport: 0.8,
  bundleSize: 0.75,
  firstResponse: 0.85,
  /**
   * Warm p50 of the handler over the stock client sending the same requests concurrently (issue
   * 16): the raw GetItem and the raw access-state UpdateItem (bench/reference-read.ts).
   */
  warmP50: 1.1,
  /**
   * Warm p50 of a lookup (SPEC 10) over the stock client sending what it sends (issue item 10):
   * the raw Query of the same index and the access-state UpdateItem together, then the second
   * UpdateItem for a page of more than one (bench/reference-read.ts `lookup`). Aim: 1.00×.
   */
  lookupP50: 1.1,
  /** Peak RSS importing the largest file over the smallest: "flat" memory. */
  importMemory: 1.25,
  /** Soak: the rig's RSS in the last quarter of the run over the second (the first is warm-up). */
  soakMemory: 1.1,
};

export function budgetsTable(rows: BudgetRow[]): string[] {
  return ['', '## Budgets', '', table(['Budget', 'Measured', 'Holds'], rows), ''];
}
