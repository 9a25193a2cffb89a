import middy from '@middy/core';
test('esm', async () => { const h = middy(async () => 1); expect(await h({}, {} as never)).toBe(1); expect(process.version).toMatch(/^v24/); });
