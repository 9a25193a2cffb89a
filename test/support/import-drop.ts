/**
 * The local import drop and the real GET handlers, with the record helpers, for
 * test/integration/import-drop.test.ts: started once (useImportDrop), and these live
 * bindings are set by its beforeAll.
 */
import { parseExactJson, stringifyExactJson } from '../../core/json.ts';
import { customer, transaction } from '../fixtures.ts';
import { startTestDrop } from './drop.ts';
import { startReaders, type Entity } from './readers.ts';

export let drop: Awaited<ReturnType<typeof startTestDrop>>;
export let readers: Awaited<ReturnType<typeof startReaders>>;

/** Starts the drop and its readers before the file's tests, stops the drop after them. */

export function useImportDrop(): void {
  beforeAll(async () => {
    drop = await startTestDrop();
    readers = await startReaders(drop.table.endpoint, drop.table.tableName);
  }, 90_000);
  afterAll(async () => drop?.stop());
}

/** The record as imported, exactly (integers as bigint). */
export const exact = (record: Record<string, unknown>) =>
  parseExactJson(stringifyExactJson(record)) as Record<string, unknown>;
export const file = (lines: string[]) => `${lines.join('\n')}\n`;
/** A record with no file fields set, so that the API returns it exactly as imported. */
export const txn = (id: number, more: Record<string, unknown> = {}) =>
  transaction({ id, signature: null, attachment: null, ...more });
export const cust = (id: number, more: Record<string, unknown> = {}) =>
  customer({ id, id_photo: null, ...more });

/** The import's audit events, by kind. */
export function eventsOf(importId: string) {
  const events = drop.auditEvents().filter((e) => e.importId === importId);
  return {
    all: events,
    started: events.filter((e) => e.kind === 'import-started'),
    ended: events.filter((e) => e.kind === 'import-ended'),
    records: events.filter((e) => e.kind === 'record'),
  };
}

export const status = async (entity: Entity, id: number) => (await readers.get(entity, id)).status;
