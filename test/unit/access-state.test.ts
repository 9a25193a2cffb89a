/** The access-state item's key and attribute names (SPEC 8, core/access-state.ts). */
import {
  ACCESS_PARTITION_PREFIX,
  ACCESS_SORT_KEY,
  COUNTER_SLOTS,
  COUNT_SCALE,
  NOT_BEFORE,
  counterSlot,
  counterValue,
  countReadRequest,
  readCounter,
  accessStateKey,
  accessStateWireKey,
  groupNotBefore,
} from '../../core/access-state.ts';
import { ENTITIES } from '../../core/entities.ts';
import { partitionKey } from '../../core/layout.ts';
import { READ_BUDGET_LIMITS } from '../../core/read-budgets.ts';

test('one item per user, keyed by the sub, under a prefix no record uses', () => {
  expect(accessStateKey('a1b2c3d4-0000-4000-8000-000000000001')).toEqual({
    pk: 'USER#a1b2c3d4-0000-4000-8000-000000000001',
    sk: 'ACCESS',
  });
  expect(ACCESS_PARTITION_PREFIX).toBe('USER#');
  expect(ACCESS_SORT_KEY).toBe('ACCESS');
  for (const entity of Object.values(ENTITIES))
    expect(partitionKey(entity, 1n).startsWith(ACCESS_PARTITION_PREFIX)).toBe(false);
  expect(() => accessStateKey('')).toThrow();
  expect(accessStateWireKey('s-1')).toEqual({ pk: { S: 'USER#s-1' }, sk: { S: 'ACCESS' } });
});

test('nbf and nbf:<group>', () => {
  expect(NOT_BEFORE).toBe('nbf');
  expect(groupNotBefore('customer-readers')).toBe('nbf:customer-readers');
});

test('a read counter carries its window: slots cycle, values above every budget', () => {
  expect(COUNT_SCALE > BigInt(READ_BUDGET_LIMITS.budgetMax)).toBe(true);
  expect(readCounter('customer', 3)).toBe('reads:customer:3');
  expect(counterSlot(300 * 17, 300)).toBe(17 % COUNTER_SLOTS);
  expect(counterValue(1_767_571_200n * COUNT_SCALE + 42n)).toEqual({
    window: 1_767_571_200,
    reads: 42,
  });
  const count = countReadRequest('count', 'customer', 600, 300, 60);
  // Every other slot of the route is cleared, none of the other route's.
  expect(Object.values(count.ExpressionAttributeNames).sort()).toEqual(
    Array.from({ length: COUNTER_SLOTS }, (_, k) => readCounter('customer', k)).sort(),
  );
  expect(count.ExpressionAttributeNames['#count']).toBe(readCounter('customer', 2));
  expect(count.ExpressionAttributeValues).toEqual({
    ':base': 600n * COUNT_SCALE,
    ':one': 1n,
    ':limit': 600n * COUNT_SCALE + 60n,
  });
  const restart = countReadRequest('restart', 'customer', 600, 300, 60);
  expect(restart.ExpressionAttributeValues).toEqual({
    ':base': 600n * COUNT_SCALE,
    ':first': 600n * COUNT_SCALE + 1n,
  });
});
