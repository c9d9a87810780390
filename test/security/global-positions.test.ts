import { describe, expect, it } from 'vitest';
import { api, newPlatform, OPERATOR, type TestPlatform } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';
import { policy } from '../support/agents';

/**
 * Security review round three, finding 12: bookmarks and search cursors carried positions in the whole database,
 * so between two of a platform's requests they advanced by the other platforms' writes (service-wide activity).
 * A platform's answers carry no database position, and its cursors depend on its own data only.
 */
const page = async (p: TestPlatform, path: string) => {
  const res = await api('GET', path, { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.hasMore).toBe(true);
  return res.body as { data: { id: string }[]; nextCursor: string };
};

/** Another platform's writes: customers whose names and e-mails match the first platform's search. */
async function othersWrite(n: number) {
  const other = await newPlatform();
  for (let i = 0; i < n; i++)
    await createCustomer(other, individualBody({ fullName: `Marlowe Other ${i}`, email: `marlowe${i}@other.test` }));
}

describe("a platform's bookmarks and cursors say nothing of other platforms' writes", () => {
  // Each home is a database of its own platforms: the second's positions would tell of its platforms' writes too.
  it.each(['DB', 'DB_2'])(
    "a platform's answers carry no X-D1-Bookmark: reads, writes, an agent's requests and credential-free routes (in %s)",
    async (home) => {
      const p = await newPlatform({ home });
      const created = await api('POST', '/customers', { auth: p.auth, body: individualBody() });
      expect(created.status).toBe(201);
      expect(created.headers.get('X-D1-Bookmark')).toBeNull();
      const read = await api('GET', `/customers/${created.body.id}`, { auth: p.auth });
      expect(read.status).toBe(200);
      expect(read.headers.get('X-D1-Bookmark')).toBeNull();
      const agent = await api('POST', '/agents', { auth: p.auth, body: { name: 'Bot', customerId: created.body.id, policy: policy() } });
      expect(agent.status).toBe(201);
      // A route anyone may call without credentials (the agent software redeeming its code) reads the database too.
      const redeemed = await api('POST', `/agents/device-codes/${agent.body.deviceCode.code}/redeem`);
      expect(redeemed.status).toBe(200);
      expect(redeemed.headers.get('X-D1-Bookmark')).toBeNull();
      const me = await api('GET', '/agents/me', { auth: `Bearer ${redeemed.body.accessToken}` });
      expect(me.status).toBe(200);
      expect(me.headers.get('X-D1-Bookmark')).toBeNull();
      // The operator, whose database it is, still gets one.
      const platforms = await api('GET', '/operator/platforms?limit=1', { auth: OPERATOR });
      expect(platforms.status).toBe(200);
      expect(platforms.headers.get('X-D1-Bookmark')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/);
    },
  );

  it("another platform's writes between two reads leave a search's cursor and next page unchanged", async () => {
    const p = await newPlatform();
    for (let i = 0; i < 3; i++)
      await createCustomer(p, individualBody({ fullName: `Marlowe Mine ${i}`, email: `marlowe.mine${i}@mine.test` }));
    const before = await page(p, '/customers?search=Marlowe&limit=1');
    await othersWrite(5);
    const after = await page(p, '/customers?search=Marlowe&limit=1');
    expect(after.nextCursor).toBe(before.nextCursor);
    expect(after.data).toEqual(before.data);
    const next = await page(p, `/customers?search=Marlowe&limit=1&cursor=${encodeURIComponent(before.nextCursor)}`);
    expect(next.data).toHaveLength(1);
    expect(next.data[0]!.id).not.toBe(before.data[0]!.id);
  });

  it("another platform's writes between two reads leave a list's cursor unchanged", async () => {
    const p = await newPlatform();
    for (let i = 0; i < 2; i++) await createCustomer(p, individualBody());
    const paths = [
      '/customers?limit=1',
      '/customers?limit=1&createdAfter=2000-01-01T00:00:00Z',
      '/customers?limit=1&updatedAfter=2000-01-01T00:00:00Z',
    ];
    const before = await Promise.all(paths.map((path) => page(p, path)));
    await othersWrite(3);
    for (const [i, path] of paths.entries()) expect((await page(p, path)).nextCursor, path).toBe(before[i]!.nextCursor);
  });
});
