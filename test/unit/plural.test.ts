import { plural } from '../../core/plural.ts';

test('counts read as a person writes them: npm start says "1 customer", never "1 customers"', () => {
  expect([0, 1, 2].map((n) => plural(n, 'customer'))).toEqual([
    '0 customers',
    '1 customer',
    '2 customers',
  ]);
});
