/** The access-state item's key and attribute names (SPEC 8, core/access-state.ts). */
import {
  ACCESS_PARTITION_PREFIX,
  ACCESS_SORT_KEY,
  NOT_BEFORE,
  accessStateKey,
  accessStateWireKey,
  groupNotBefore,
} from '../../core/access-state';
import { ENTITIES } from '../../core/entities';
import { partitionKey } from '../../core/layout';

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
