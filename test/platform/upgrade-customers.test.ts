import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, searchFound, upTo } from '../support/migrations';

const T = Date.parse('2026-06-01T00:00:00Z');
const P1 = 'Platform:0199b000-0000-7000-8000-000000000001';
const P2 = 'Platform:0199b000-0000-7000-8000-000000000002';

/** A customer row as the previous release wrote it. */
const customer = (
  n: number,
  platformId: string,
  type: 'INDIVIDUAL' | 'BUSINESS',
  info: Record<string, unknown>,
  extra: { email?: string; deleted?: boolean; currencies?: string[] } = {},
) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, email, uma_address, currencies,
       verification_status, info, is_deleted, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'UNVERIFIED', ?, ?, ?, ?)`,
  ).bind(
    `Customer:0199b000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    platformId,
    `pc-${n}`,
    type,
    extra.email ?? null,
    `$pc-${n}@p.test`,
    JSON.stringify(extra.currencies ?? ['USD']),
    JSON.stringify(info),
    extra.deleted ? 1 : 0,
    T + n,
    T + n,
  );
const id = (n: number) => `Customer:0199b000-0000-7000-8000-${String(n).padStart(12, '0')}`;

async function counts() {
  const { results } = await env.UPGRADE_DB.prepare(
    `SELECT platform_id AS p, list, n FROM list_counts WHERE list LIKE 'customers%' ORDER BY platform_id, list`,
  ).all<{ p: string; list: string; n: number }>();
  return Object.fromEntries(results.map((r) => [`${r.p === P1 ? 'P1' : 'P2'} ${r.list}`, r.n]));
}

/** Customers the search index finds for a term, on each platform. */
async function found(term: string) {
  return [...(await searchFound(env.UPGRADE_DB, P1, term)), ...(await searchFound(env.UPGRADE_DB, P2, term))];
}

describe('upgrading a database of the previous release: customers', () => {
  it('counts, lists by currency and indexes for search the customers already there, and keeps doing so afterwards', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0010_'));
    await env.UPGRADE_DB.batch([
      platform(P1.slice('Platform:'.length), 'one.test', T),
      platform(P2.slice('Platform:'.length), 'two.test', T),
      customer(1, P1, 'INDIVIDUAL', { fullName: 'Jane Smith' }, { email: 'jane@example.com', currencies: ['USD', 'EUR'] }),
      customer(2, P1, 'BUSINESS', { businessInfo: { legalName: 'Smithy Works LLC' } }),
      customer(3, P1, 'INDIVIDUAL', { fullName: 'Gone Person' }, { deleted: true }),
      customer(4, P1, 'BUSINESS', {}),
      customer(5, P2, 'INDIVIDUAL', { fullName: 'Other Smith' }, { currencies: ['MXN'] }),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    expect(await counts()).toEqual({
      'P1 customers': 3,
      'P1 customers:all': 4,
      'P1 customers:BUSINESS': 2,
      'P1 customers:INDIVIDUAL': 1,
      'P2 customers': 1,
      'P2 customers:all': 1,
      'P2 customers:INDIVIDUAL': 1,
    });
    expect(await found('smith')).toEqual([id(1), id(2), id(5)]);
    expect(await found('EXAMPLE.COM')).toEqual([id(1)]);
    expect(await found('pc-4')).toEqual([id(4)]);
    expect(await found('gone')).toEqual([id(3)]);
    const { results: currencies } = await env.UPGRADE_DB.prepare(
      `SELECT currency, customer_id AS id FROM customer_currencies WHERE platform_id = ? ORDER BY currency, customer_id`,
    )
      .bind(P1)
      .all();
    expect(currencies).toEqual([
      { currency: 'EUR', id: id(1) },
      { currency: 'USD', id: id(1) },
      { currency: 'USD', id: id(2) },
      { currency: 'USD', id: id(3) },
      { currency: 'USD', id: id(4) },
    ]);

    // The triggers carry on from the filled state: a new customer, a rename, a deletion, a row removed.
    await customer(6, P1, 'INDIVIDUAL', { fullName: 'New Smithson' }).run();
    await env.UPGRADE_DB.prepare(`UPDATE customers SET info = json_object('fullName', 'Jane Doe') WHERE id = ?`).bind(id(1)).run();
    await env.UPGRADE_DB.prepare(`UPDATE customers SET is_deleted = 1 WHERE id = ?`).bind(id(2)).run();
    await env.UPGRADE_DB.prepare(`DELETE FROM customers WHERE id = ?`).bind(id(5)).run();
    expect(await found('smith')).toEqual([id(2), id(6)]);
    expect(await found('jane doe')).toEqual([id(1)]);
    expect(await counts()).toEqual({
      'P1 customers': 3,
      'P1 customers:all': 5,
      'P1 customers:BUSINESS': 1,
      'P1 customers:INDIVIDUAL': 2,
      'P2 customers': 0,
      'P2 customers:all': 0,
      'P2 customers:INDIVIDUAL': 0,
    });
  });
});
