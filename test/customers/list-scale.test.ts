import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, newPlatform, type TestPlatform } from '../support/api';
import { businessBody, createCustomer, individualBody } from '../support/customers';
import { advance } from '../support/payments';
import { measured } from '../perf/counting';

/**
 * GET /customers at a size where reading the tenant shows: counts come from counters the database keeps
 * (issue 24), each filter reads through its index and a search through its full-text index, so a page reads
 * about its rows whatever the platform holds.
 */

const list = async (p: TestPlatform, query: string) => {
  const res = await api('GET', `/customers?${query}`, { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const idsOf = (page: { data: { id: string }[] }) => page.data.map((x) => x.id);

/** Every page of a query, following nextCursor. */
async function walk(p: TestPlatform, query: string): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(p, `${query}${cursor ? `&cursor=${cursor}` : ''}`);
    seen.push(...idsOf(page));
    cursor = page.nextCursor;
  } while (cursor);
  return seen;
}

/**
 * `n` customers of the platform written straight into the table, as a release's data or an import would be:
 * the triggers count and index them. Named "Filler Person", region US, currency USD; older than the API's customers.
 */
async function seed(p: TestPlatform, n: number, now = Date.now()) {
  // Older than any customer the API makes (ids sort by time), unique to this call.
  const prefix = `0000${crypto.randomUUID().slice(4, 23)}`;
  await env.DB.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?1)
     INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, email, uma_address, region, currencies,
       verification_status, info, is_deleted, created_at, updated_at)
     SELECT printf('Customer:%s-%012d', ?2, i), ?3, printf('filler-%s-%d', ?2, i), 'INDIVIDUAL', NULL,
       printf('$filler-%s-%d@%s', ?2, i, ?4), 'US', '["USD"]', 'UNVERIFIED', '{"fullName":"Filler Person"}', 0, ?5, ?5
     FROM seq`,
  )
    .bind(n, prefix, p.id, p.umaDomain, now)
    .run();
}

/** Rows D1 reads for the SELECTs a request ran (each run again on its own for its `meta.rows_read`). */
async function rowsRead(p: TestPlatform, path: string): Promise<number> {
  const res = await measured('GET', path, { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  let rows = 0;
  for (const s of res.cost.sql.filter((x) => /^\s*select/i.test(x.query))) {
    const { meta } = await env.DB.prepare(s.query)
      .bind(...s.params)
      .all();
    rows += meta.rows_read;
  }
  return rows;
}

describe('GET /customers: counts kept by the database', () => {
  it('counts live customers, all of them with isIncludingDeleted, and live ones per type; other filters carry no totalCount', async () => {
    const p = await newPlatform();
    const a = await createCustomer(p, individualBody({ region: 'US' }));
    await createCustomer(p, individualBody({ region: 'US' }));
    await createCustomer(p, businessBody());
    expect((await api('DELETE', `/customers/${a.id}`, { auth: p.auth })).status).toBe(200);
    expect((await list(p, 'limit=1')).totalCount).toBe(2);
    expect((await list(p, 'limit=1&isIncludingDeleted=true')).totalCount).toBe(3);
    expect((await list(p, 'customerType=INDIVIDUAL')).totalCount).toBe(1);
    expect((await list(p, 'customerType=BUSINESS')).totalCount).toBe(1);
    for (const query of [
      'customerType=INDIVIDUAL&isIncludingDeleted=true',
      'region=US',
      `platformCustomerId=${encodeURIComponent(a.platformCustomerId)}&isIncludingDeleted=true`,
      'currency=USD',
      'createdAfter=2020-01-01T00:00:00Z',
      'search=smith',
    ]) {
      const page = await list(p, query);
      expect(page, query).not.toHaveProperty('totalCount');
      expect(page.data.length, query).toBeGreaterThan(0);
    }
    // Another platform's customers and deletions count only there.
    const other = await newPlatform();
    expect((await list(other, '')).totalCount).toBe(0);
    expect((await list(other, 'isIncludingDeleted=true')).totalCount).toBe(0);
    expect((await list(other, 'customerType=BUSINESS')).totalCount).toBe(0);
  });

  it('keeps counting through rows written without the service (imports, SQL) and the sandbox reset', async () => {
    const p = await newPlatform();
    await createCustomer(p);
    await seed(p, 40);
    expect((await list(p, 'limit=1')).totalCount).toBe(41);
    expect((await list(p, 'customerType=INDIVIDUAL&limit=1')).totalCount).toBe(41);
    expect(await walk(p, 'limit=100&search=filler%20per')).toHaveLength(40);
    expect((await api('POST', '/sandbox/reset', { auth: p.auth })).status).toBe(204);
    expect(await list(p, 'isIncludingDeleted=true')).toEqual({ data: [], hasMore: false, totalCount: 0 });
    expect((await list(p, 'customerType=INDIVIDUAL')).totalCount).toBe(0);
    expect(await list(p, 'search=filler')).toEqual({ data: [], hasMore: false });
    const { results } = await env.DB.prepare(`SELECT count(*) AS n FROM customer_currencies WHERE platform_id = ?`).bind(p.id).all();
    expect(results[0]).toEqual({ n: 0 });
  });
});

describe('GET /customers: filters and search follow every change', () => {
  it('search finds a customer by its new name, e-mail and id after a PATCH, and a deleted one only with isIncludingDeleted', async () => {
    const p = await newPlatform();
    // Without an e-mail at first: a customer's e-mail tied to a wallet credential changes through a signed retry.
    const c = await createCustomer(p, individualBody({ fullName: 'Quentin Oldname' }));
    const patched = await api('PATCH', `/customers/${c.id}`, {
      auth: p.auth,
      body: { customerType: 'INDIVIDUAL', fullName: 'Quentin Newname', email: 'q@new.test' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(idsOf(await list(p, 'search=oldname'))).toEqual([]);
    expect(idsOf(await list(p, 'search=NEWNAME'))).toEqual([c.id]);
    expect(idsOf(await list(p, 'search=new.test'))).toEqual([c.id]);
    // The index finds rows holding the term's pieces; only those containing the term are answered.
    const pieces = await createCustomer(p, individualBody({ fullName: 'Smi Xith Quentins' }));
    expect(idsOf(await list(p, 'search=smith'))).toEqual([]);
    expect(idsOf(await list(p, 'search=quentin'))).toEqual([c.id, pieces.id]);
    // Quotes and the index's own syntax are text.
    expect(idsOf(await list(p, `search=${encodeURIComponent('"x" OR smi*')}`))).toEqual([]);
    // Only ASCII letters ignore case, as before the index: É is not é.
    const e = await createCustomer(p, individualBody({ fullName: 'Émile Zola' }));
    expect(idsOf(await list(p, `search=${encodeURIComponent('Émile')}`))).toEqual([e.id]);
    expect(idsOf(await list(p, `search=${encodeURIComponent('émile')}`))).toEqual([]);
    expect((await api('DELETE', `/customers/${c.id}`, { auth: p.auth })).status).toBe(200);
    expect(idsOf(await list(p, 'search=newname'))).toEqual([]);
    expect(idsOf(await list(p, 'search=newname&isIncludingDeleted=true'))).toEqual([c.id]);
    // A new customer may take the deleted one's platformCustomerId; search sees both rows apart.
    const again = await createCustomer(p, individualBody({ platformCustomerId: c.platformCustomerId, fullName: 'Someone Else' }));
    expect(idsOf(await list(p, `search=${encodeURIComponent(c.platformCustomerId)}&isIncludingDeleted=true`))).toEqual([c.id, again.id]);
  });

  it('currency follows the customer’s currencies as they change', async () => {
    const p = await newPlatform();
    const a = await createCustomer(p, individualBody({ currencies: ['USD', 'EUR'] }));
    const b = await createCustomer(p, individualBody({ currencies: ['MXN'] }));
    expect(idsOf(await list(p, 'currency=EUR'))).toEqual([a.id]);
    const res = await api('PATCH', `/customers/${b.id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL', currencies: ['EUR'] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(idsOf(await list(p, 'currency=EUR'))).toEqual([a.id, b.id]);
    expect(idsOf(await list(p, 'currency=MXN'))).toEqual([]);
    expect(await walk(p, 'currency=EUR&limit=1')).toEqual([a.id, b.id]);
  });

  it('pages updated* filters in updatedAt order and created* ones in createdAt order, each row once', async () => {
    const p = await newPlatform();
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await createCustomer(p));
    const since = made[0].createdAt;
    // The update lands a second later on the platform's clock: a clock advance, not a wait on the wall clock.
    await advance(p, 1);
    const res = await api('PATCH', `/customers/${made[1].id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL', fullName: 'Changed' } });
    expect(res.status).toBe(200);
    const all = made.map((c) => c.id);
    expect(await walk(p, `updatedAfter=${encodeURIComponent(since)}&limit=1`)).toEqual([all[0], all[2], all[3], all[1]]);
    expect(await walk(p, `updatedAfter=${encodeURIComponent(res.body.updatedAt)}&limit=1`)).toEqual([all[1]]);
    expect(await walk(p, `createdAfter=${encodeURIComponent(since)}&limit=1`)).toEqual(all);
    expect(await walk(p, `createdBefore=${encodeURIComponent(made[2].createdAt)}&limit=2`)).toEqual(all.slice(0, 3));
    // A cursor of an id-ordered page is not one of these pages.
    const first = await list(p, 'limit=1');
    expect(
      (await api('GET', `/customers?updatedAfter=${encodeURIComponent(since)}&cursor=${first.nextCursor}`, { auth: p.auth })).status,
    ).toBe(400);
  });
});

describe('GET /customers reads about its page, not the platform', () => {
  it('a page, a filter matching few rows, a search and their counts read a bounded number of rows among 3,000 customers', async () => {
    const p = await newPlatform();
    await seed(p, 3000);
    const rare = await createCustomer(p, individualBody({ region: 'MX', currencies: ['BRL'], fullName: 'Zebediah Rare' }));
    const neighbour = await newPlatform();
    await seed(neighbour, 500);
    // Each budget is the page (20, or the few matches) times a small constant plus authentication: it does not
    // grow with the 3,000 rows (today's counts and walks read them all).
    const budgets: [string, number][] = [
      ['/customers', 120],
      ['/customers?isIncludingDeleted=true&limit=20', 120],
      ['/customers?customerType=INDIVIDUAL', 120],
      ['/customers?region=MX', 40],
      ['/customers?currency=BRL', 40],
      [`/customers?umaAddress=${encodeURIComponent(rare.umaAddress)}&isIncludingDeleted=true`, 40],
      [`/customers?createdAfter=${encodeURIComponent(rare.createdAt)}`, 40],
      ['/customers?search=zebediah', 60],
      // Every seeded name holds the term's pieces ("Filler Person": Per, son, Fil, ler), none the term: no walk.
      ['/customers?search=PersonFiller', 60],
      ['/customers?search=filler&limit=20', 200],
    ];
    const over: string[] = [];
    for (const [path, budget] of budgets) {
      const read = await rowsRead(p, path);
      if (read > budget) over.push(`${path}: ${read} rows read, budget ${budget}`);
    }
    expect(over).toEqual([]);
  });

  it("a business customer's update and deletion read its beneficial owners through their index, not every owner", async () => {
    const p = await newPlatform();
    const biz = await createCustomer(p, businessBody());
    const lines: string[] = [];
    for (const [method, body] of [
      ['PATCH', { customerType: 'BUSINESS', address: { line1: '1 New St', city: 'Austin', postalCode: '78701', country: 'US' } }],
      ['DELETE', undefined],
    ] as const) {
      const res = await measured(method, `/customers/${biz.id}`, { auth: p.auth, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (const s of res.cost.sql.filter((x) => /^\s*select/i.test(x.query) && /"beneficial_owners"/.test(x.query))) {
        const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.query}`)
          .bind(...s.params)
          .all<{ detail: string }>();
        lines.push(...results.map((r) => `${method}: ${r.detail}`).filter((d) => /SCAN beneficial_owners|TEMP B-TREE/.test(d)));
      }
    }
    expect(lines).toEqual([]);
  });
});
