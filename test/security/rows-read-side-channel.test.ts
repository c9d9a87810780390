import { describe, expect, it } from 'vitest';
import { api, newPlatform, type TestPlatform } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';

/**
 * Security review round three, finding 4: the sandbox's `X-D1-Rows-Read` told a platform about another platform's
 * customers. A search for a name only another platform held read its matches (67 rows against 5 for a name nobody
 * held), so names and e-mails could be probed piece by piece; `GET /customers/{id}` read more for another platform's
 * customer than for an unknown id. Whatever another platform holds, such a read costs what a miss costs.
 */
const rowsRead = async (p: TestPlatform, path: string) => {
  const res = await api('GET', path, { auth: p.auth });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
  return Number(res.headers.get('X-D1-Rows-Read'));
};

describe("another platform's customers do not show in the rows a request reads", () => {
  it('a search for a name, an e-mail or a piece of them only another platform holds reads what a miss reads', async () => {
    const victim = await newPlatform();
    for (let i = 0; i < 30; i++) {
      await createCustomer(victim, individualBody({ fullName: `Zanzibar Quillfeather ${i}`, email: `zq.secret${i}@victim.test` }));
    }
    const prober = await newPlatform();
    // Its own customer holds none of the probed letters (a generated platformCustomerId may hold a `q`).
    await createCustomer(prober, individualBody({ fullName: 'Plain Name', platformCustomerId: 'prober-1' }));
    // The same query shape each time (a term of 3+ characters, and one of 1 or 2: each has its own index).
    const miss = await rowsRead(prober, '/customers?search=Nobodyholdsthis');
    const shortMiss = await rowsRead(prober, '/customers?search=qj');
    for (const term of ['Zanzibar', 'Quillfeather', 'zq.secret1', '@victim.test', 'anzib']) {
      expect(await rowsRead(prober, `/customers?search=${encodeURIComponent(term)}`), term).toBe(miss);
    }
    for (const term of ['zq', 'Q', 'zz']) {
      expect(await rowsRead(prober, `/customers?search=${encodeURIComponent(term)}`), term).toBe(shortMiss);
    }
    // The victim itself finds them.
    expect((await api('GET', '/customers?search=Quillfeather&limit=100', { auth: victim.auth })).body.data).toHaveLength(30);
  });

  it("GET /customers/{id} of another platform's customer reads what an unknown id reads", async () => {
    const victim = await newPlatform();
    const theirs = await createCustomer(victim, individualBody());
    const prober = await newPlatform();
    const unknown = await rowsRead(prober, `/customers/Customer:${crypto.randomUUID()}`);
    expect(await rowsRead(prober, `/customers/${theirs.id}`)).toBe(unknown);
    // The same id answers 404 exactly as an unknown one.
    const res = await api('GET', `/customers/${theirs.id}`, { auth: prober.auth });
    expect(res.status).toBe(404);
  });
});
